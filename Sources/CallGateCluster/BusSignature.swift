import Crypto
import Foundation

/// The cluster secret's seal on every bus message, so that a node acts on no message that
/// another client of Redis made up or moved to another channel.
///
/// A sealed message is a line `S <ms> <mac> [<mac>]`, then the message. `<ms>` is when it was
/// sealed (Unix milliseconds) and each `<mac>` the hex HMAC-SHA256, under one secret, of the
/// channel, `<ms>` and the message, each followed by a newline. A push's epoch and seq are left
/// out of what is signed: Redis puts them in when it numbers the push (`PushStream.append`),
/// after the node sealed it. While a previous secret is kept (rotation), messages carry a MAC
/// under each secret, so that nodes still on the old one accept them, and a MAC under either
/// secret is accepted. A message older (or newer) than `maxAge` by the receiver's clock is
/// refused as stale, but for pushes read back from a user's stream. Pure; any thread.
public struct BusSignature: Sendable {
    /// Why a message was refused.
    public enum Rejection: String, Error, CaseIterable {
        /// It has no seal line, or one that does not parse.
        case unsigned
        /// No MAC in it matches a secret this node holds.
        case forged
        /// It was sealed longer than `maxAge` ago, or that far in the future.
        case stale
    }

    /// The fewest bytes a secret has.
    public static let minimumSecretBytes = 32
    /// How far a message's seal may be from the receiver's clock, by default.
    public static let defaultMaxAge: Duration = .seconds(30)

    private let current: SymmetricKey
    private let previous: SymmetricKey?
    /// Until when (Unix ms) the previous secret is used.
    private let previousUntil: Int64
    private let maxAgeMillis: Int64
    private let now: @Sendable () -> Int64

    /// Seals with `secret` (at least `minimumSecretBytes` bytes, as are the others) and, until
    /// `previousUntil` (Unix ms), with `previous` too; accepts messages sealed within `maxAge`
    /// of `now` (Unix ms). Nil when a secret is too short.
    public init?(
        secret: [UInt8], previous: [UInt8]? = nil, previousUntil: Int64 = 0, maxAge: Duration = Self.defaultMaxAge,
        now: @escaping @Sendable () -> Int64 = BusSignature.wallClockMillis
    ) {
        guard secret.count >= Self.minimumSecretBytes, (previous?.count ?? Self.minimumSecretBytes) >= Self.minimumSecretBytes
        else { return nil }
        current = SymmetricKey(data: secret)
        self.previous = previous.map { SymmetricKey(data: $0) }
        self.previousUntil = previousUntil
        maxAgeMillis = maxAge.microseconds / 1000
        self.now = now
    }

    /// The wall clock in Unix milliseconds.
    public static func wallClockMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// `message` sealed for `channel`.
    public func seal(_ message: [UInt8], on channel: String) -> [UInt8] {
        sealLine(for: channel, signing: message[...]) + message
    }

    /// A push's two parts (see `ClusterMessage.pushParts`) sealed for `channel`: the seal goes
    /// before them and covers both, but not the epoch and seq that Redis puts between them.
    public func seal(
        push parts: (beforeSeq: [UInt8], afterSeq: [UInt8]), on channel: String
    ) -> (beforeSeq: [UInt8], afterSeq: [UInt8]) {
        (sealLine(for: channel, signing: (parts.beforeSeq + parts.afterSeq)[...]) + parts.beforeSeq, parts.afterSeq)
    }

    /// The message inside `bytes` when its seal is good for `channel` (and, with `checkingAge`,
    /// recent), else why not.
    public func open(_ bytes: [UInt8], on channel: String, checkingAge: Bool = true) -> Result<ArraySlice<UInt8>, Rejection> {
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "S"), bytes[1] == UInt8(ascii: " "),
              let end = bytes.firstIndex(of: Self.newline) else { return .failure(.unsigned) }
        let fields = bytes[2..<end].split(separator: Self.space, omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields[0].count <= 16,
              let stamp = Int64(String(decoding: fields[0], as: UTF8.self)) else { return .failure(.unsigned) }
        let macs = fields.dropFirst().map(Self.bytes(ofHex:))
        guard macs.allSatisfy({ $0?.count == SHA256.byteCount }) else { return .failure(.unsigned) }
        let message = bytes[(end + 1)...]
        let keys = previous.map { now() < previousUntil ? [current, $0] : [current] } ?? [current]
        let signed = Self.signedPart(of: message)
        let valid = keys.contains { key in
            let code = Self.code(for: channel, stamp: stamp, message: signed, key: key)
            return macs.contains { mac in mac.map { code == $0 } ?? false }
        }
        guard valid else { return .failure(.forged) }
        if checkingAge {
            let age = now() - stamp
            if age > maxAgeMillis || age < -maxAgeMillis {
                return .failure(.stale)
            }
        }
        return .success(message)
    }

    private func sealLine(for channel: String, signing message: ArraySlice<UInt8>) -> [UInt8] {
        let stamp = now()
        var line = Array("S \(stamp)".utf8)
        var keys = [current]
        if let previous, stamp < previousUntil {
            keys.append(previous)
        }
        for key in keys {
            line.append(Self.space)
            line += Self.hex(Self.code(for: channel, stamp: stamp, message: message, key: key))
        }
        line.append(Self.newline)
        return line
    }

    /// What of `message` is signed: all of it, but a push's epoch and seq (the fifth and sixth
    /// fields of its first line) and the space before each.
    private static func signedPart(of message: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard message.first == UInt8(ascii: "P"), let end = message.firstIndex(of: newline) else { return message }
        let fields = message[..<end].split(separator: space, omittingEmptySubsequences: false)
        guard fields.count == 7 else { return message }
        var signed = Array(fields[0..<5].joined(separator: [space]))
        signed.append(space)
        signed += message[end...]
        return signed[...]
    }

    private static func code(
        for channel: String, stamp: Int64, message: ArraySlice<UInt8>, key: SymmetricKey
    ) -> HashedAuthenticationCode<SHA256> {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Array(channel.utf8))
        mac.update(data: [newline])
        mac.update(data: Array(String(stamp).utf8))
        mac.update(data: [newline])
        mac.update(data: message)
        return mac.finalize()
    }

    private static func hex(_ code: HashedAuthenticationCode<SHA256>) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(SHA256.byteCount * 2)
        for byte in code {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return out
    }

    private static func bytes(ofHex text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                out.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }

    private static let newline = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
}

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
/// refused as stale (pushes read back from a user's stream are given their own bound); the
/// same message heard twice is refused by the bus (`SeenSeals`). Pure; any thread.
public struct BusSignature: Sendable {
    /// Why a message was refused.
    public enum Rejection: String, Error, CaseIterable {
        /// It has no seal line, or one that does not parse.
        case unsigned
        /// No MAC in it matches a secret this node holds.
        case forged
        /// It was sealed longer than `maxAge` ago, or that far in the future.
        case stale
        /// It was heard before (`SeenSeals`).
        case replayed
        /// It is longer than `maxMessageBytes`.
        case oversized
    }

    /// A message whose seal is good.
    public struct Opened: Equatable {
        /// The message inside the seal.
        public let message: ArraySlice<UInt8>
        /// When it was sealed (Unix ms).
        public let stamp: Int64
        /// Its MAC, as this node computed it: the same for every copy of the message, whatever
        /// epoch and seq a push carries.
        public let digest: Digest
    }

    /// The first 16 bytes of a MAC, which name a message among those heard.
    public struct Digest: Hashable, Sendable {
        let high: UInt64
        let low: UInt64
    }

    /// The fewest bytes a secret has.
    public static let minimumSecretBytes = 32
    /// How far a message's seal may be from the receiver's clock, by default.
    public static let defaultMaxAge: Duration = .seconds(30)
    /// The longest message a node opens.
    public static let maxMessageBytes = 1 << 20

    /// How far a message's seal may be from the receiver's clock.
    public var maxAge: Duration { .milliseconds(maxAgeMillis) }

    /// Now, by the clock seals are judged by (Unix ms).
    public func nowMillis() -> Int64 {
        now()
    }

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

    /// The message inside `bytes` when its seal is good for `channel` and it was sealed within
    /// `maxAge` (default: this seal's) of now, else why not.
    public func open(_ bytes: [UInt8], on channel: String, maxAge: Duration? = nil) -> Result<Opened, Rejection> {
        guard bytes.count <= Self.maxMessageBytes else { return .failure(.oversized) }
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "S"), bytes[1] == UInt8(ascii: " "),
              let end = bytes.firstIndex(of: Self.newline) else { return .failure(.unsigned) }
        let fields = bytes[2..<end].split(separator: Self.space, omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), let stamp = Self.stamp(fields[0]) else { return .failure(.unsigned) }
        let macs = fields.dropFirst().map(Self.bytes(ofHex:))
        guard macs.allSatisfy({ $0?.count == SHA256.byteCount }) else { return .failure(.unsigned) }
        // The stamp is covered by the MAC: a message that is stale either way costs no HMAC.
        let bound = maxAge.map { $0.microseconds / 1000 } ?? maxAgeMillis
        let age = now() - stamp
        guard age <= bound, age >= -maxAgeMillis else { return .failure(.stale) }
        let message = bytes[(end + 1)...]
        let keys = previous.map { now() < previousUntil ? [current, $0] : [current] } ?? [current]
        let signed = Self.signedPart(of: message)
        // Named by the current secret's MAC whichever secret matched, so that a copy carrying
        // only the other MAC is the same message.
        let name = Self.code(for: channel, stamp: stamp, message: signed, key: current)
        for (index, key) in keys.enumerated() {
            let code = index == 0 ? name : Self.code(for: channel, stamp: stamp, message: signed, key: key)
            if macs.contains(where: { mac in mac.map { code == $0 } ?? false }) {
                return .success(Opened(message: message, stamp: stamp, digest: Self.digest(of: name)))
            }
        }
        return .failure(.forged)
    }

    /// A stamp: 1 to 16 decimal digits, no sign, no leading zero.
    private static func stamp(_ field: ArraySlice<UInt8>) -> Int64? {
        guard (1...16).contains(field.count), field.first != UInt8(ascii: "0") || field.count == 1,
              field.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(String(decoding: field, as: UTF8.self))
    }

    private static func digest(of code: HashedAuthenticationCode<SHA256>) -> Digest {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in code.prefix(16).enumerated() {
            if index < 8 {
                high = high << 8 | UInt64(byte)
            } else {
                low = low << 8 | UInt64(byte)
            }
        }
        return Digest(high: high, low: low)
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

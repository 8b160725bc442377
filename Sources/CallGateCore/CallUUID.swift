import Crypto

/// The UUID a phone's call screen (CallKit, ConnectionService) knows a call by: a name-based
/// RFC 4122 UUID (version 5, SHA-1) of the call's session id, in lowercase. Derived, not drawn,
/// so it is the same on every node, after a restart and in the call log, with nothing stored.
public enum CallUUID {
    /// The namespace of CallGate's call UUIDs (a version 4 UUID drawn once for this purpose).
    static let namespace: [UInt8] = [
        0x6f, 0x1c, 0x2a, 0x5e, 0x93, 0x0b, 0x4d, 0x71, 0xa8, 0x44, 0x2e, 0x0d, 0x5b, 0xc3, 0x97, 0x1f,
    ]

    /// The call UUID of the call with `sessionId`, e.g. `4be0643f-1d98-573b-97cd-ca98a65347dd`.
    public static func of(sessionId: String) -> String {
        var hash = Insecure.SHA1()
        hash.update(data: namespace)
        hash.update(data: Array(sessionId.utf8))
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return format(bytes)
    }

    /// `bytes` as 8-4-4-4-12 lowercase hex digits.
    static func format(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text.append(UInt8(ascii: "-"))
            }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

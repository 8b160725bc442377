/// The shape every session id has: 1 to 128 characters of `[A-Za-z0-9._:-]`. Checked before
/// any lookup so junk never reaches the tables.
public enum SessionIDFormat {
    /// The longest session id, in characters.
    public static let maxLength = 128

    /// Whether `sessionId` has the shape of a session id.
    public static func isValid(_ sessionId: String) -> Bool {
        let bytes = sessionId.utf8
        guard (1...maxLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}

/// Makes session ids for new calls. Injected so tests can use predictable ids.
///
/// Ids must be unguessable in production (knowing one lets a client act on the call) and must
/// pass the core's session id rules: 1 to 128 characters of `[A-Za-z0-9._:-]`. The core draws
/// again when an id collides with a call it still knows. Service thread only.
public protocol SessionIDGenerator {
    /// A fresh session id.
    func makeSessionID() -> String
}

/// Session ids of 128 random bits from the system's secure generator: `v1.` followed by
/// 32 lowercase hex digits.
public struct RandomSessionIDGenerator: SessionIDGenerator {
    /// Makes a random generator.
    public init() {}

    /// A fresh unguessable session id.
    public func makeSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "v1." + hex(generator.next()) + hex(generator.next())
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

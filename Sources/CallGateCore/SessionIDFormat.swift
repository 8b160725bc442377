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

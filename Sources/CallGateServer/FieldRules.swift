/// The shape rules for ids and names that the admin API and connection tokens share, so a uid that
/// one accepts the other accepts too.
///
/// Pure functions; any thread.
public enum FieldRules {
    /// The longest guid or uid, in characters.
    public static let maxIDLength = 100
    /// The longest user or group name, in Unicode scalars.
    public static let maxNameLength = 200
    /// What a guid or uid may look like, for error messages.
    public static let idRuleDescription = "must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"
    /// What a name may look like, for error messages.
    public static let nameRuleDescription = "must be 1..200 characters"

    /// Whether `id` is a valid guid or uid: 1..100 characters of `[A-Za-z0-9_.@:-]`.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxIDLength else { return false }
        return bytes.allSatisfy(isIDByte)
    }

    /// Whether `name` is a valid user or group name: 1..200 Unicode scalars.
    ///
    /// Scalars rather than grapheme clusters, so the limit also bounds the size in bytes.
    public static func isValidName(_ name: String) -> Bool {
        let count = name.unicodeScalars.count
        return count >= 1 && count <= maxNameLength
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

/// The shape rules for ids, names and picture URLs that tokens, `initiateCall` and the admin API
/// share, so a uid one accepts the others accept too. Every bound is in UTF-8 bytes: a count of
/// characters would let one letter with thousands of combining marks pass as "1 character".
///
/// Pure functions; any thread.
public enum FieldRules {
    /// The longest guid or uid, in UTF-8 bytes (ASCII only, so also in characters).
    public static let maxIDBytes = 100
    /// The longest user or group name, in UTF-8 bytes.
    public static let maxNameBytes = 256
    /// The longest avatar or icon URL, in UTF-8 bytes.
    public static let maxPictureBytes = 2048
    /// What a guid or uid may look like, for error messages.
    public static let idRuleDescription = "must be 1..100 characters of A-Z a-z 0-9 _ . @ : -"
    /// What a name may look like, for error messages.
    public static let nameRuleDescription = "must be 1..256 UTF-8 bytes without control characters"
    /// What an avatar or icon may look like, for error messages.
    public static let pictureRuleDescription = "must be 1..2048 UTF-8 bytes without control characters"

    /// The longest reason the app's backend may give for ending a call, in UTF-8 bytes.
    public static let maxReasonBytes = 256
    /// What such a reason may look like, for error messages.
    public static let reasonRuleDescription = "must be 1..256 UTF-8 bytes without control characters"

    /// Whether `reason` is a valid reason for ending a call: 1..256 UTF-8 bytes, no control
    /// characters.
    public static func isValidReason(_ reason: String) -> Bool {
        isPrintable(reason, maxBytes: maxReasonBytes)
    }

    /// The longest session event type, in bytes.
    public static let maxEventTypeBytes = 64
    /// What a session event type may look like, for error messages.
    public static let eventTypeRuleDescription = "must be 1..64 characters of A-Z a-z 0-9 _ . @ : -"

    /// Whether `type` is a valid session event type: 1..64 bytes of the id characters.
    public static func isValidEventType(_ type: String) -> Bool {
        isIDText(type, maxBytes: maxEventTypeBytes)
    }

    /// Whether `id` is a valid guid or uid: 1..100 bytes of `[A-Za-z0-9_.@:-]`.
    public static func isValidID(_ id: String) -> Bool {
        isIDText(id, maxBytes: maxIDBytes)
    }

    /// Whether `text` is 1..`maxBytes` bytes of `[A-Za-z0-9_.@:-]`.
    private static func isIDText(_ text: String, maxBytes: Int) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return false }
        return bytes.allSatisfy(isIDByte)
    }

    /// Whether `name` is a valid user or group name: 1..256 UTF-8 bytes, no control characters.
    public static func isValidName(_ name: String) -> Bool {
        isPrintable(name, maxBytes: maxNameBytes)
    }

    /// Whether `url` is a valid avatar or group icon: 1..2048 UTF-8 bytes, no control characters.
    public static func isValidPicture(_ url: String) -> Bool {
        isPrintable(url, maxBytes: maxPictureBytes)
    }

    private static func isPrintable(_ text: String, maxBytes: Int) -> Bool {
        let count = text.utf8.count
        guard count >= 1, count <= maxBytes else { return false }
        return !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
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

/// A position in a user's call list, newest first, that stays put while new calls arrive:
/// it names a call id and a side of it.
public enum CallLogCursor: Hashable, Sendable {
    /// The calls older than this id (the next page).
    case olderThan(Int64)
    /// The calls newer than this id (the previous page).
    case newerThan(Int64)

    /// The opaque text form, as the API returns it: `o<id>` or `n<id>`.
    public var encoded: String {
        switch self {
        case .olderThan(let id): "o\(id)"
        case .newerThan(let id): "n\(id)"
        }
    }

    /// Reads the text form; nil when it is not one.
    public init?(encoded text: String) {
        guard let side = text.first, let id = Int64(text.dropFirst()), id >= 0,
              String(id) == text.dropFirst()
        else { return nil }
        switch side {
        case "o": self = .olderThan(id)
        case "n": self = .newerThan(id)
        default: return nil
        }
    }
}

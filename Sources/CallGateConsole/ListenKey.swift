/// A key pressed in `callgate listen`, and what it does.
public enum ListenKey: Sendable, Equatable {
    /// Answer the call ringing most recently with this policy (a, r, b).
    case answer(AnswerPolicy)
    /// Hang up the call in progress (h).
    case hangUp
    /// Leave (q).
    case quit

    /// The key for a typed character, case-insensitive; nil for any other character.
    public init?(_ character: Character) {
        switch character.lowercased() {
        case "a": self = .answer(.accept)
        case "r": self = .answer(.reject)
        case "b": self = .answer(.busy)
        case "h": self = .hangUp
        case "q": self = .quit
        default: return nil
        }
    }

    /// The help line listen prints when a call rings.
    public static let help = "press a to accept, r to reject, b for busy"
}

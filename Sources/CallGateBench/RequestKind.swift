/// Which request a reply answers, told by the first character of the id the generator gave it.
///
/// Each socket has at most one request of a kind outstanding, so a one-letter id is enough and
/// replies are classified without keeping a table of pending requests.
public enum RequestKind: UInt8, CaseIterable, Sendable {
    case connect = 0x63  // "c"
    case initiate = 0x69  // "i"
    case accept = 0x61  // "a"
    case cancel = 0x78  // "x"
    case end = 0x65  // "e"

    /// The id sent with requests of this kind.
    public var id: String { String(UnicodeScalar(rawValue)) }
}

/// Opaque positions to page from, stable while new calls arrive: pass one back as `cursor`.
public struct CallLogCursors: Codable, Hashable, Sendable {
    /// The page of older calls after this one; absent on the last page.
    public var next: String?
    /// The page of newer calls before this one; absent when nothing newer matches.
    public var previous: String?

    /// Makes a cursors value.
    public init(next: String? = nil, previous: String? = nil) {
        self.next = next
        self.previous = previous
    }
}

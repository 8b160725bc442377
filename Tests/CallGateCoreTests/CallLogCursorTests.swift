import CallGateCore
import Testing

/// The text form of call log cursors: `o<id>` / `n<id>` round-trip, and anything else (empty,
/// another side letter, signs, leading zeros, trailing junk, overflow) is refused.
@Suite struct CallLogCursorTests {
    @Test func cursorsHaveASideLetterAndAnId() {
        #expect(CallLogCursor.olderThan(42).encoded == "o42")
        #expect(CallLogCursor.newerThan(0).encoded == "n0")
    }

    @Test(arguments: [
        CallLogCursor.olderThan(0), .olderThan(1), .olderThan(987_654_321), .olderThan(.max),
        .newerThan(0), .newerThan(7), .newerThan(.max),
    ])
    func theTextFormRoundTrips(_ cursor: CallLogCursor) {
        #expect(CallLogCursor(encoded: cursor.encoded) == cursor)
    }

    @Test(arguments: [
        "", "x1", "o-1", "o01", "o1x", "o", "n", "O1", "N1", "o+1", " o1", "o1 ", "o 1", "on1",
        "o9223372036854775808", "n00", "1", "-1", "o1.0", "o٣",
    ])
    func junkIsRefused(_ text: String) {
        #expect(CallLogCursor(encoded: text) == nil)
    }
}

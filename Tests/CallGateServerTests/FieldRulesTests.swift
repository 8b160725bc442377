import CallGateServer
import Testing

@Suite struct FieldRulesTests {
    @Test(arguments: ["a", "Alice_1", "user@example.com", "team:1", "a-b.c", String(repeating: "z", count: 100)])
    func validIDs(id: String) {
        #expect(FieldRules.isValidID(id))
    }

    @Test(arguments: ["", "a b", "a/b", "a+b", "café", "a\u{0}", "%41", String(repeating: "z", count: 101)])
    func invalidIDs(id: String) {
        #expect(!FieldRules.isValidID(id))
    }

    @Test func namesAreCountedInScalars() {
        #expect(FieldRules.isValidName("A"))
        #expect(FieldRules.isValidName(String(repeating: "é", count: 200)))
        #expect(!FieldRules.isValidName(""))
        #expect(!FieldRules.isValidName(String(repeating: "n", count: 201)))
        // One grapheme cluster, 201 scalars.
        #expect(!FieldRules.isValidName("e" + String(repeating: "\u{301}", count: 200)))
    }
}

import CallGateCore
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

    @Test func namesAreCountedInUTF8Bytes() {
        #expect(FieldRules.isValidName("A"))
        #expect(FieldRules.isValidName(String(repeating: "é", count: 128)))
        #expect(!FieldRules.isValidName(String(repeating: "é", count: 129)))
        #expect(!FieldRules.isValidName(""))
        #expect(FieldRules.isValidName(String(repeating: "n", count: 256)))
        #expect(!FieldRules.isValidName(String(repeating: "n", count: 257)))
        // One grapheme cluster, 401 bytes.
        #expect(!FieldRules.isValidName("e" + String(repeating: "\u{301}", count: 200)))
    }

    @Test(arguments: ["a\u{0}b", "line\nbreak", "tab\there", "bell\u{7}", "c1\u{85}"])
    func namesHaveNoControlCharacters(name: String) {
        #expect(!FieldRules.isValidName(name))
    }

    @Test func picturesAreBoundedInBytes() {
        #expect(FieldRules.isValidPicture("https://example.com/a.png"))
        #expect(FieldRules.isValidPicture(String(repeating: "p", count: 2048)))
        #expect(!FieldRules.isValidPicture(String(repeating: "p", count: 2049)))
        #expect(!FieldRules.isValidPicture(""))
        #expect(!FieldRules.isValidPicture("https://x\n"))
    }
}

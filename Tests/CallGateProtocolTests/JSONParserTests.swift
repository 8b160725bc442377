import CallGateProtocol
import Foundation
import TestSupport
import Testing

/// `JSONParser` accepts the texts Foundation's JSONDecoder accepts as a `JSONValue` (nesting at
/// most `JSONNesting.maxDepth`) and reads each to the same value, but where it holds to RFC
/// 8259 and Foundation does not (`deviations`).
@Suite struct JSONParserTests {
    /// What the frame path read before `JSONParser`: the nesting scan, then Foundation.
    static func foundation(_ bytes: [UInt8]) -> JSONValue? {
        guard !JSONNesting.exceeds(JSONNesting.maxDepth, in: bytes) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    static func parsed(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONParser.parse(bytes, maxDepth: JSONNesting.maxDepth)
    }

    static let corpus: [String] = [
        "", " ", "{}", "[]", "null", "true", "false", "0", "-0", "1", "-1", "1.5", "1e5", "1E+2", "1e-2", "1e400",
        "-1e400", "1e-400", "-1.5e-999", "0e-999", "0.0", "0.0001e-320", "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "12345678901234567890", "1e-300", "4e-320",
        "123456789012345", "1234567890123456", "-9007199254740993", "0.1e1", "[,1]", "[1 2]", "[1,,2]",
        "{\"a\" 1}", "{a:1}", "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1},\"a\":[2]}", "[\"\\u0000\"]", "[\"\\ud83d\\ude00\"]",
        "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]", "[\"\\ud800x\"]", "[\"\\uD83D\\uDE00\"]", "[\"\\u00e9\"]",
        "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12g4\"]", "[\"\t\"]", "[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]", "[\"a", "[\"a\\",
        "\u{FEFF}[1]", "\u{FEFF}", "[1]\u{FEFF}", "[1] ", "\n\r\t [1]\n", "[1]x", "[1][2]", "tru", "truex", "nul",
        "[true ,false]", "{\"é\":\"漢👩‍👩‍👧\"}", "{\"\":\"\"}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "{\"id\":\"1\",\"op\":\"ping\",\"data\":{}}",
    ]

    /// Texts read differently, each with what Foundation makes of it and what the parser does:
    /// a trailing comma is not JSON, and zero written with a fraction and an exponent is zero.
    static let deviations: [(text: String, foundation: JSONValue?, parsed: JSONValue?)] = [
        ("[1,]", .array([.number(1)]), nil),
        ("{\"a\":1,}", .object(["a": .number(1)]), nil),
        ("[0.000e5]", nil, .array([.number(0)])),
    ]

    @Test(arguments: corpus)
    func readsTheCorpusAsFoundationDoes(text: String) {
        let bytes = Array(text.utf8)
        #expect(Self.parsed(bytes) == Self.foundation(bytes))
    }

    @Test func deviatesFromFoundationOnlyWhereRFC8259Says() {
        for deviation in Self.deviations {
            let bytes = Array(deviation.text.utf8)
            #expect(Self.foundation(bytes) == deviation.foundation, "\(deviation.text)")
            #expect(Self.parsed(bytes) == deviation.parsed, "\(deviation.text)")
        }
    }

    @Test func invalidUTF8IsRefusedAsFoundationRefusesIt() {
        let texts: [[UInt8]] = [
            [0x22, 0xC3, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xC3, 0x5C, 0x6E, 0x22], [0x22, 0x00, 0x22], [0x5B, 0x31, 0x00, 0x5D],
            [0x5B, 0x00, 0x31, 0x00, 0x5D, 0x00], [0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00], [0x22, 0xC3, 0xA9, 0x22],
        ]
        for bytes in texts {
            #expect(Self.parsed(bytes) == Self.foundation(bytes), "\(bytes)")
        }
    }

    @Test func randomDocumentsAndTheirMutations() throws {
        var random = RandomWireValues(seed: 16)
        let pieces: [[UInt8]] = [
            [0x22], [0x5C], [0x7B], [0x7D], [0x5B], [0x5D], [0x3A], [0x2C], [0x30], [0x39], [0x2D], [0x2B], [0x2E], [0x65],
            [0x45], [0x75], [0x6E], [0x74], [0x66], [0x20], [0x00], [0x1F], [0x7F], [0xC3], [0xA9], [0xFF], [0xED, 0xA0],
            [0xEF, 0xBB, 0xBF], Array("\\u".utf8), Array("\\ud83d".utf8), Array("\\ude00".utf8), Array("1e999".utf8),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for _ in 0..<1500 {
            let value = JSONValue.object(random.object(depth: 1))
            let text = Array(try encoder.encode(value))
            #expect(Self.parsed(text) == value)
            for _ in 0..<6 {
                var mutated = text
                let position = random.count(upTo: mutated.count)
                let piece = pieces[random.count(upTo: pieces.count - 1)]
                switch random.count(upTo: 2) {
                case 0: mutated.insert(contentsOf: piece, at: position)
                case 1 where position < mutated.count: mutated.replaceSubrange(position...position, with: piece)
                default: if position < mutated.count { mutated.remove(at: position) }
                }
                let stripped = Self.withoutTrailingCommas(mutated)
                let foundation = Self.foundation(mutated)
                if stripped == mutated {
                    #expect(Self.parsed(mutated) == foundation, "\(String(decoding: mutated, as: UTF8.self))")
                } else {
                    #expect(Self.parsed(mutated) == nil, "\(String(decoding: mutated, as: UTF8.self))")
                    if foundation != nil {
                        #expect(Self.parsed(stripped) == foundation, "\(String(decoding: mutated, as: UTF8.self))")
                    }
                }
            }
        }
    }

    /// `bytes` without the commas that end an array or object, which Foundation tolerates;
    /// brackets inside strings are left alone.
    static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var inString = false
        var escaped = false
        var pendingComma: Int?
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                kept.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let comma = pendingComma { kept.remove(at: comma) }
                pendingComma = nil
            case UInt8(ascii: ","):
                pendingComma = kept.count
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            default:
                pendingComma = nil
                if byte == UInt8(ascii: "\"") { inString = true }
            }
            kept.append(byte)
        }
        return kept
    }

    @Test func numbersAsLongAsAMessageAreReadWithoutTrapping() throws {
        let digits = String(repeating: "7", count: 65_000)
        #expect(try JSONParser.parse(Array(("[0." + digits + "]").utf8), maxDepth: 32) == .array([.number(0.7777777777777778)]))
        #expect(throws: JSONParser.Failure.invalid) { try JSONParser.parse(Array(digits.utf8), maxDepth: 32) }
        #expect(throws: JSONParser.Failure.invalid) { try JSONParser.parse(Array(("1e" + digits).utf8), maxDepth: 32) }
        #expect(throws: JSONParser.Failure.invalid) { try JSONParser.parse(Array(("1e-" + digits).utf8), maxDepth: 32) }
        #expect(try JSONParser.parse(Array(("0e" + digits).utf8), maxDepth: 32) == .number(0))
    }

    @Test func nestingPastTheLimitIsTooDeepWhateverFollows() {
        let atLimit = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: Never.self) { try JSONParser.parse(Array(atLimit.utf8), maxDepth: 32) }
        for text in [String(repeating: "[", count: 33), String(repeating: "{\"a\":", count: 100_000), "[" + atLimit + "]"] {
            #expect(throws: JSONParser.Failure.tooDeep) { try JSONParser.parse(Array(text.utf8), maxDepth: 32) }
        }
        #expect(throws: JSONParser.Failure.invalid) { try JSONParser.parse(Array("[1,]".utf8), maxDepth: 32) }
    }
}

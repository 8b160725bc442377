import CallGateProtocol
import Foundation
import Testing

@Suite struct JSONValueTests {
    @Test func integralNumbersEncodeWithoutFraction() throws {
        let value = JSONValue.array([.number(3), .number(-2), .number(0.5), .number(1e300)])
        #expect(try JSONText.string(value.encoded()) == "[3,-2,0.5,1e+300]")
    }

    @Test func nonFiniteNumbersEncodeAsNull() throws {
        let value = JSONValue.array([.number(.nan), .number(.infinity)])
        #expect(try JSONText.string(value.encoded()) == "[null,null]")
    }

    @Test func decodesEveryKindAndTellsBoolsFromNumbers() throws {
        let text = #"{"a":null,"b":true,"c":1,"d":"x/y","e":[false,2.5],"f":{"g":{}}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: JSONText.data(text))
        #expect(value == .object([
            "a": .null,
            "b": .bool(true),
            "c": .number(1),
            "d": .string("x/y"),
            "e": .array([.bool(false), .number(2.5)]),
            "f": .object(["g": .object([:])]),
        ]))
    }

    @Test func encodingIsCompactSortedAndKeepsSlashes() throws {
        let value = JSONValue.object(["b": .string("a/b"), "a": .bool(false)])
        #expect(try JSONText.string(value.encoded()) == #"{"a":false,"b":"a/b"}"#)
    }
}

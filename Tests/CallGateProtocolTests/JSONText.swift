import Foundation

/// Helpers to compare JSON bytes with expected text.
enum JSONText {
    /// The bytes as a string.
    static func string(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }

    /// Bytes of a literal.
    static func data(_ text: String) -> Data {
        Data(text.utf8)
    }

    /// A value as compact, key-sorted JSON text, the way the wire encodes it.
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return string(try encoder.encode(value))
    }
}

import Foundation

/// The one JSON configuration every frame of the protocol uses: compact, unescaped slashes and
/// sorted keys, so equal values always give equal bytes.
///
/// Foundation's JSONEncoder and JSONDecoder are safe to share once configured.
enum WireJSON {
    /// The shared encoder.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The shared decoder.
    static let decoder = JSONDecoder()

    /// Encodes a value that cannot fail to encode: every type of this module encodes totally
    /// (non-finite numbers in `JSONValue` become `null`), so a failure is a programming error.
    static func encode(_ value: some Encodable) -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            preconditionFailure("value is not JSON-encodable: \(error)")
        }
    }
}

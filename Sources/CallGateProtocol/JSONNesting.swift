/// The nesting bound every JSON text from a client is held to, checked on the raw bytes before
/// any decoder sees them.
///
/// Foundation's decoder and `JSONValue`'s `Codable` conformance both recurse once per level of
/// arrays and objects, so a few kilobytes of `[[[[...` would otherwise exhaust a thread's stack.
/// The scan here is a loop with a counter: it cannot overflow, whatever the input. Pure; any thread.
public enum JSONNesting {
    /// The deepest nesting of arrays and objects a frame, an HTTP body or a token part may have.
    public static let maxDepth = 32

    /// How deeply `bytes` nests arrays and objects, counting only brackets outside strings; the
    /// scan stops as soon as the depth passes `limit` and returns it.
    ///
    /// The scan reads UTF-8. Bytes holding a NUL always come out deeper than `limit` (`Int.max`,
    /// unmeasurable, once the scan reaches the NUL): UTF-8 JSON never holds one, but
    /// UTF-16 and UTF-32 JSON always do, and Foundation's decoder accepts those, so a frame of
    /// ASCII and NUL bytes could otherwise hide its brackets from this scan (found by the fuzzer,
    /// tools/fuzz/regressions/frame). It does not validate the JSON otherwise: malformed text is
    /// the decoder's to reject, once it is known to be shallow enough to decode safely.
    public static func depth(of bytes: some Collection<UInt8>, limit: Int = maxDepth) -> Int {
        if let depth = bytes.withContiguousStorageIfAvailable({ scan($0, limit: limit) }) {
            return depth
        }
        return Array(bytes).withUnsafeBufferPointer { scan($0, limit: limit) }
    }

    /// Whether `bytes` nests deeper than `limit`, or holds a NUL byte (for any `limit` but `Int.max`).
    public static func exceeds(_ limit: Int, in bytes: some Collection<UInt8>) -> Bool {
        depth(of: bytes, limit: limit) > limit
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if byte == 0 { return .max }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            default:
                break
            }
        }
        return deepest
    }
}

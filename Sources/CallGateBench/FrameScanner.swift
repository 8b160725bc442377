/// Walks a JSON frame once and picks out `FrameFields`, whatever the order of its keys.
///
/// The gateway sorts keys, a peer server may not; this reads any valid JSON object, skips what it
/// does not need, and gives up (leaving `isReadable` false) on anything that is not JSON.
public enum FrameScanner {
    private static let maxDepth = 32

    /// The fields of `frame`.
    public static func scan(_ frame: [UInt8]) -> FrameFields {
        var fields = FrameFields(bytes: frame)
        frame.withUnsafeBufferPointer { buffer in
            var walker = Walker(bytes: buffer, fields: fields)
            if let end = walker.value(at: walker.skipSpace(0), depth: 0, context: .top) {
                walker.fields.isReadable = walker.skipSpace(end) == buffer.count
            }
            fields = walker.fields
        }
        return fields
    }

    /// Where a value sits, deciding which of its keys are worth keeping.
    private enum Context {
        case top
        case error
        case nested
    }

    private struct Walker {
        let bytes: UnsafeBufferPointer<UInt8>
        var fields: FrameFields

        func skipSpace(_ start: Int) -> Int {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return index
                }
            }
            return index
        }

        /// The index just after the value starting at `start`, or nil when it is not JSON.
        mutating func value(at start: Int, depth: Int, context: Context) -> Int? {
            guard start < bytes.count, depth < FrameScanner.maxDepth else { return nil }
            switch bytes[start] {
            case UInt8(ascii: "{"): return object(at: start, depth: depth, context: context)
            case UInt8(ascii: "["): return array(at: start, depth: depth)
            case UInt8(ascii: "\""): return string(at: start)?.upperBound.advanced(by: 1)
            default: return scalar(at: start)
            }
        }

        /// The range of a string's contents (between the quotes), starting at its opening quote.
        func string(at start: Int) -> Range<Int>? {
            var index = start + 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): return (start + 1)..<index
                default: index += 1
                }
            }
            return nil
        }

        func scalar(at start: Int) -> Int? {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                    return index > start ? index : nil
                default: index += 1
                }
            }
            return index > start ? index : nil
        }

        mutating func array(at start: Int, depth: Int) -> Int? {
            var index = skipSpace(start + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return index + 1 }
            while index < bytes.count {
                guard let end = value(at: index, depth: depth + 1, context: .nested) else { return nil }
                index = skipSpace(end)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "]") { return index + 1 }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index = skipSpace(index + 1)
            }
            return nil
        }

        mutating func object(at start: Int, depth: Int, context: Context) -> Int? {
            var index = skipSpace(start + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return index + 1 }
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "\""), let key = string(at: index) else { return nil }
                index = skipSpace(key.upperBound + 1)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index = skipSpace(index + 1)
                guard index < bytes.count else { return nil }
                let valueStart = index
                let keyBytes = UnsafeBufferPointer(rebasing: bytes[key])
                let childContext: Context = context == .top && matches(keyBytes, "error") ? .error : .nested
                guard let end = value(at: valueStart, depth: depth + 1, context: childContext) else { return nil }
                note(key: keyBytes, valueStart: valueStart, valueEnd: end, context: context)
                index = skipSpace(end)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}") { return index + 1 }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index = skipSpace(index + 1)
            }
            return nil
        }

        /// Keeps the value of a key that `FrameFields` wants.
        mutating func note(key: UnsafeBufferPointer<UInt8>, valueStart: Int, valueEnd: Int, context: Context) {
            let isString = bytes[valueStart] == UInt8(ascii: "\"")
            let contents = isString ? (valueStart + 1)..<(valueEnd - 1) : nil
            switch context {
            case .top:
                if matches(key, "id") { fields.id = contents }
                else if matches(key, "event") { fields.event = contents }
                else if matches(key, "result") { fields.hasResult = true }
            case .error:
                if matches(key, "code") { fields.errorCode = contents }
            case .nested:
                break
            }
            if fields.sessionId == nil, let contents, matches(key, "sessionId") {
                fields.sessionId = contents
            }
        }

        func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            guard key.count == name.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            return key.elementsEqual(expected)
        }
    }
}

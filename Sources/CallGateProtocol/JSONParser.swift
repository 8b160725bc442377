/// Parses UTF-8 JSON text (RFC 8259) into a `JSONValue`, for the request frames a client sends.
///
/// Foundation's JSONDecoder takes about 50 µs to turn a small frame into a `JSONValue` (its
/// `Decodable` form probes each value by failing to decode it as the other types first); this
/// takes about a microsecond. It reads text as that decoder does, which `JSONParserTests`
/// checks against Foundation: a leading UTF-8 byte order mark is skipped, a duplicate key
/// keeps its first value, `\u0000` is a character like any other, a number too large or too
/// small for a `Double` is refused. Where Foundation strays from RFC 8259 this does not: a
/// trailing comma is refused, and `0.0e5` is zero. Nesting deeper than
/// `maxDepth` is refused before any of it is built, so the recursion is bounded whatever the
/// input. Pure; any thread.
public struct JSONParser {
    /// Why text is not a value.
    public enum Failure: Error, Hashable, Sendable {
        /// Arrays and objects nest deeper than the limit.
        case tooDeep
        /// The text is not one JSON value in UTF-8.
        case invalid
    }

    /// Parses `bytes`, which must hold exactly one JSON value (whitespace around it allowed),
    /// nesting arrays and objects at most `maxDepth` levels.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int) throws(Failure) -> JSONValue {
        let parsed: Result<JSONValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
            return Result { () throws(Failure) in try parser.document() }
        }
        if let parsed {
            return try parsed.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(Failure) in
            var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
            return try parser.document()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private mutating func document() throws(Failure) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let root = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw .invalid }
        return root
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw .invalid }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw .tooDeep }
            return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw .tooDeep }
            return .array(try array(depth: depth + 1))
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw .invalid
        }
    }

    /// The members of the object at `index` (its `{`), which sits at `depth`.
    private mutating func object(depth: Int) throws(Failure) -> [String: JSONValue] {
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return fields }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .invalid }
            let key = try string()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw .invalid }
            let member = try value(depth: depth)
            if fields[key] == nil {
                fields[key] = member
            }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw .invalid }
            return fields
        }
    }

    /// The elements of the array at `index` (its `[`), which sits at `depth`.
    private mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return elements }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw .invalid }
            return elements
        }
    }

    /// The string at `index` (its opening quote), unescaped; its UTF-8 must be valid.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return try text(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw .invalid }
            index += 1
        }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try unescaped.withUnsafeBufferPointer { buffer throws(Failure) in try text(buffer) }
            case UInt8(ascii: "\\"):
                try unescape(into: &unescaped)
            case 0..<0x20:
                throw .invalid
            default:
                unescaped.append(byte)
            }
        }
        throw .invalid
    }

    /// Reads the escape after a backslash (`index` is past the backslash) and appends what it
    /// stands for as UTF-8. A `\u` escape of a UTF-16 high surrogate must be followed by one of
    /// a low surrogate; a lone surrogate is refused.
    private mutating func unescape(into unescaped: inout [UInt8]) throws(Failure) {
        guard index < bytes.count else { throw .invalid }
        let kind = bytes[index]
        index += 1
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(kind)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try hexQuad())
            if (0xD800...0xDBFF).contains(code) {
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else { throw .invalid }
                let low = UInt32(try hexQuad())
                guard (0xDC00...0xDFFF).contains(low) else { throw .invalid }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw .invalid
            }
            guard let scalar = Unicode.Scalar(code) else { throw .invalid }
            UTF8.encode(scalar) { unescaped.append($0) }
        default:
            throw .invalid
        }
    }

    /// Four hex digits at `index`.
    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard bytes.count - index >= 4 else { throw .invalid }
        var code: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalid
            }
            code = code << 4 | UInt16(digit)
            index += 1
        }
        return code
    }

    /// The number at `index`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    /// An integer of up to 15 digits is exact in a `Double` and computed directly; any other
    /// number goes through the standard library's correctly rounded conversion, and one that
    /// overflows `Double`, or underflows it to zero, is refused.
    private mutating func number() throws(Failure) -> Double {
        let start = index
        let negative = consume(UInt8(ascii: "-"))
        let integerStart = index
        guard index < bytes.count, isDigit(bytes[index]) else { throw .invalid }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        let integerDigits = index - integerStart
        var isIntegral = true
        if consume(UInt8(ascii: ".")) {
            isIntegral = false
            guard index < bytes.count, isDigit(bytes[index]) else { throw .invalid }
            skipDigits()
        }
        let mantissa = integerStart..<index
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isIntegral = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard index < bytes.count, isDigit(bytes[index]) else { throw .invalid }
            skipDigits()
        }
        if isIntegral && integerDigits <= 15 {
            var magnitude: Int64 = 0
            for byte in bytes[integerStart..<index] {
                magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw .invalid }
        if number == 0 && bytes[mantissa].contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) {
            throw .invalid
        }
        return number
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw .invalid }
        let matches = word.withUTF8Buffer { expected in
            UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]).elementsEqual(expected)
        }
        guard matches else { throw .invalid }
        index += count
    }

    /// Steps over `byte` if it is next; whether it was.
    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) {
            index += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw .invalid }
        return text
    }
}

import Foundation

/// Compact JSON written straight into bytes, byte for byte as `WireJSON`'s encoder writes the
/// same value: keys in UTF-8 byte order, slashes unescaped, `"`, `\` and the control
/// characters escaped (`\b \f \n \r \t`, else `\u00xx` in lowercase hex), everything else
/// copied as UTF-8.
///
/// Foundation's JSONEncoder builds a tree of boxed values and walks it with existential
/// containers: about 25 µs for a call. The frames every ring and every cancel fan out are
/// written with this instead (see `JSONWritable`), each in well under a microsecond. Pure; any
/// thread.
public struct JSONWriter {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []

    /// Starts empty, with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends JSON text the caller vouches for, such as `{"sessionId":`: a fixed key with
    /// its punctuation.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as a JSON string.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` in decimal. Concrete, not generic over `BinaryInteger`: a generic
    /// method called from another module runs unspecialized, through witness tables and
    /// metadata lookups (a fifth of the store writer's time once went to the call log's
    /// numbers that way).
    public mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        integer(value.magnitude)
    }

    /// Appends `value` in decimal.
    public mutating func integer(_ value: Int) {
        integer(Int64(value))
    }

    /// Appends `value` in decimal.
    public mutating func integer(_ value: UInt64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let first = bytes.count
        var magnitude = value
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        }
        bytes[first...].reverse()
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Appends a number as `JSONValue` writes it: an integral value within ±2^53 without a
    /// fraction, any other finite value as Swift's shortest round-trip form (`1.5`, `1e+20`),
    /// and a non-finite one, which JSON cannot express, as `null`.
    public mutating func number(_ value: Double) {
        if !value.isFinite {
            raw("null")
        } else if let exact = JSONValue.integer(exactly: value) {
            integer(exact)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends any value that writes itself.
    public mutating func value(_ value: some JSONWritable) {
        value.write(to: &self)
    }

    /// Appends `values` as a JSON array.
    public mutating func array(_ values: [some JSONWritable]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            value.write(to: &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `fields` as a JSON object, its keys in UTF-8 byte order.
    public mutating func object(_ fields: [String: some JSONWritable]) {
        bytes.append(UInt8(ascii: "{"))
        let sorted = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (index, field) in sorted.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(field.key)
            bytes.append(UInt8(ascii: ":"))
            field.value.write(to: &self)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The text as `Data`, for the APIs that take it.
    public var data: Data {
        Data(bytes)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            raw("u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}

/// A wire value that writes its own JSON with `JSONWriter`, exactly the bytes `WireJSON`'s
/// encoder writes for its `Encodable` form (the protocol tests compare the two for every such
/// type). Frames of these types skip Foundation's encoder: push frames always, and
/// `ReplyFrame.success` when the result is one.
public protocol JSONWritable: Encodable {
    /// Appends this value's JSON.
    func write(to json: inout JSONWriter)
}

extension String: JSONWritable {
    /// Writes the string, escaped.
    public func write(to json: inout JSONWriter) {
        json.string(self)
    }
}

extension Int64: JSONWritable {
    /// Writes the integer.
    public func write(to json: inout JSONWriter) {
        json.integer(self)
    }
}

extension Bool: JSONWritable {
    /// Writes `true` or `false`.
    public func write(to json: inout JSONWriter) {
        json.bool(self)
    }
}

extension Array: JSONWritable where Element: JSONWritable {
    /// Writes the array.
    public func write(to json: inout JSONWriter) {
        json.array(self)
    }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// Writes the object, its keys sorted.
    public func write(to json: inout JSONWriter) {
        json.object(self)
    }
}

extension JSONWritable where Self: RawRepresentable, RawValue == String {
    /// Writes the raw value, as the synthesized `Encodable` form does.
    public func write(to json: inout JSONWriter) {
        json.string(rawValue)
    }
}

extension JSONValue: JSONWritable {
    /// Writes the value as its `Encodable` form does.
    public func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.raw("null")
        case .bool(let value): json.bool(value)
        case .number(let value): json.number(value)
        case .string(let value): json.string(value)
        case .array(let values): json.array(values)
        case .object(let fields): json.object(fields)
        }
    }
}

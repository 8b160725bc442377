import Foundation

/// Any JSON value, for the free-form parts of the protocol (call `metadata`) and for reading
/// frames field by field so errors can name the offending field.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number. Integral values encode without a fraction (`3`, not `3.0`).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
}

extension JSONValue {
    /// How deeply arrays and objects nest in this value: 0 for a scalar, 1 for `{}` or `[1]`.
    /// Iterative, so any value can be measured.
    public var depth: Int {
        var deepest = 0
        var pending: [(JSONValue, Int)] = [(self, 0)]
        while let (value, level) = pending.popLast() {
            switch value {
            case .array(let items):
                deepest = max(deepest, level + 1)
                pending.append(contentsOf: items.map { ($0, level + 1) })
            case .object(let fields):
                deepest = max(deepest, level + 1)
                pending.append(contentsOf: fields.values.map { ($0, level + 1) })
            case .null, .bool, .number, .string:
                break
            }
        }
        return deepest
    }
}

extension JSONValue {
    /// `number` as the integer it is when it is integral and within ±2^53, where every integer
    /// is exact, so it is written without a fraction (`3`, not `3.0`); nil otherwise.
    static func integer(exactly number: Double) -> Int64? {
        guard number.isFinite, number.rounded() == number, abs(number) <= 9_007_199_254_740_992 else { return nil }
        return Int64(number)
    }
}

extension JSONValue: Codable {
    /// Reads whatever JSON value is at the decoder's position.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value. Integral numbers within ±2^53 are written as integers; non-finite
    /// numbers, which JSON cannot express, are written as `null` so encoding never fails.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null:
            try container.encodeNil()
        case .bool(let value):
            try container.encode(value)
        case .number(let value):
            if !value.isFinite {
                try container.encodeNil()
            } else if let integer = Self.integer(exactly: value) {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .string(let value):
            try container.encode(value)
        case .array(let value):
            try container.encode(value)
        case .object(let value):
            try container.encode(value)
        }
    }

    /// The compact JSON text of this value, as the wire carries it. Used to measure metadata
    /// against its size cap.
    public func encoded() throws(FrameEncodingError) -> Data {
        try WireJSON.encode(self)
    }
}

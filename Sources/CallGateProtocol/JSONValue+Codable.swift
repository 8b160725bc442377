import Foundation

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
            } else if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 {
                try container.encode(Int64(value))
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

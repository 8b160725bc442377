/// Reads the fields of a request's `data` object one by one, so a bad field produces an error
/// that names it (`data.<field>: <problem>`) and carries the frame id for the reply.
struct FrameFieldReader {
    /// The id of the frame being read, echoed in every error.
    let id: String
    /// The object being read: `data`, or an object inside it.
    let fields: [String: JSONValue]
    /// Where `fields` sits in the frame, for errors: `data`, `data.recover`.
    var path = "data"

    /// A required string field.
    func string(_ key: String) throws(FrameDecodingError) -> String {
        switch fields[key] {
        case .string(let value)?:
            return value
        case nil, .null?:
            throw problem(key, "missing, expected a string")
        default:
            throw problem(key, "expected a string")
        }
    }

    /// A required string field whose value must be one of an enum's raw values.
    func choice<Value: RawRepresentable & CaseIterable>(
        _ key: String, as type: Value.Type
    ) throws(FrameDecodingError) -> Value where Value.RawValue == String {
        if case .string(let raw)? = fields[key], let value = Value(rawValue: raw) {
            return value
        }
        let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
        throw problem(key, "expected one of \(names)")
    }

    /// An optional string field; `null` counts as absent.
    func optionalString(_ key: String) throws(FrameDecodingError) -> String? {
        switch fields[key] {
        case nil, .null?:
            return nil
        case .string(let value)?:
            return value
        default:
            throw problem(key, "expected a string")
        }
    }

    /// An optional integer field; `null` counts as absent. `45.0` is accepted as 45.
    func optionalInteger(_ key: String) throws(FrameDecodingError) -> Int? {
        switch fields[key] {
        case nil, .null?:
            return nil
        case .number(let value)?:
            guard let integer = Int(exactly: value) else { throw problem(key, "expected an integer") }
            return integer
        default:
            throw problem(key, "expected an integer")
        }
    }

    /// An optional boolean field; `null` counts as absent.
    func optionalBool(_ key: String) throws(FrameDecodingError) -> Bool? {
        switch fields[key] {
        case nil, .null?:
            return nil
        case .bool(let value)?:
            return value
        default:
            throw problem(key, "expected a boolean")
        }
    }

    /// An optional object field; `null` counts as absent.
    func optionalObject(_ key: String) throws(FrameDecodingError) -> [String: JSONValue]? {
        switch fields[key] {
        case nil, .null?:
            return nil
        case .object(let value)?:
            return value
        default:
            throw problem(key, "expected an object")
        }
    }

    /// A required array of strings; its length is the caller's to bound.
    func strings(_ key: String) throws(FrameDecodingError) -> [String] {
        guard case .array(let values)? = fields[key] else {
            throw problem(key, fields[key] == nil || fields[key] == .null ? "missing, expected an array of strings" : "expected an array of strings")
        }
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let text) = value else { throw problem(key, "expected an array of strings") }
            strings.append(text)
        }
        return strings
    }

    /// An optional field of any JSON value; `null` counts as absent.
    func optionalValue(_ key: String) throws(FrameDecodingError) -> JSONValue? {
        switch fields[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// An optional object field, read field by field like `data`; `null` counts as absent.
    func optionalReader(_ key: String) throws(FrameDecodingError) -> FrameFieldReader? {
        try optionalObject(key).map { FrameFieldReader(id: id, fields: $0, path: "\(path).\(key)") }
    }

    /// An error about field `key`: `<path>.<key>: <text>`.
    func problem(_ key: String, _ text: String) -> FrameDecodingError {
        FrameDecodingError(id: id, message: "\(path).\(key): \(text)")
    }
}

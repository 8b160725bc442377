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

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

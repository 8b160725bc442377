import CallGateCore

/// A request field that failed validation; becomes a 400 `ERR_BAD_REQUEST`.
///
/// A plain value; any thread.
public struct FieldError: Error, Equatable, Sendable {
    /// The JSON path of the field, e.g. `members[2]`, or `guid` for a path segment.
    public var field: String
    /// What the value must look like.
    public var rule: String

    /// An error for `field` that breaks `rule`.
    public init(field: String, rule: String) {
        self.field = field
        self.rule = rule
    }

    /// `"field: rule"`, as the error body's message.
    public var message: String { "\(field): \(rule)" }

    /// Throws unless `value` is a valid guid or uid.
    static func checkID(_ value: String, field: String) throws(FieldError) {
        guard FieldRules.isValidID(value) else { throw FieldError(field: field, rule: FieldRules.idRuleDescription) }
    }

    /// Throws unless `value` is a valid avatar or icon URL.
    static func checkPicture(_ value: String, field: String) throws(FieldError) {
        guard FieldRules.isValidPicture(value) else { throw FieldError(field: field, rule: FieldRules.pictureRuleDescription) }
    }

    /// Throws unless `value` is a valid name.
    static func checkName(_ value: String, field: String) throws(FieldError) {
        guard FieldRules.isValidName(value) else { throw FieldError(field: field, rule: FieldRules.nameRuleDescription) }
    }
}

/// Client-facing wording for JSON decoding failures, e.g. `members[2]: expected string`.
extension DecodingError {
    /// What went wrong and where, naming the field by its JSON path (`body` for the whole
    /// document); never mentions Swift type names.
    var fieldError: FieldError {
        switch self {
        case .typeMismatch(let type, let context):
            FieldError(field: Self.path(context.codingPath), rule: "expected \(Self.jsonKind(type))")
        case .valueNotFound(let type, let context):
            FieldError(field: Self.path(context.codingPath), rule: "expected \(Self.jsonKind(type)), found null")
        case .keyNotFound(let key, let context):
            FieldError(field: Self.path(context.codingPath + [key]), rule: "required field is missing")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            FieldError(field: "body", rule: "not valid JSON")
        case .dataCorrupted(let context):
            FieldError(field: Self.path(context.codingPath), rule: "value out of range or of the wrong kind")
        @unknown default:
            FieldError(field: "body", rule: "could not be decoded")
        }
    }

    /// `members[2]`, `name`, or `body` for the top level.
    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "body" : text
    }

    /// The JSON name for what a Swift type decodes from.
    private static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is any BinaryInteger.Type: "integer"
        case is any BinaryFloatingPoint.Type: "number"
        default:
            switch String(describing: type) {
            case let name where name.hasPrefix("Array"): "array"
            case let name where name.hasPrefix("Dictionary"): "object"
            default: "a different type"
            }
        }
    }
}

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

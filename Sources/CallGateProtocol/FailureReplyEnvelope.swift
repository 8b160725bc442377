/// The `{"id"?, "error"}` shape of a failed reply; `id` is omitted when the request had none.
struct FailureReplyEnvelope: Encodable {
    /// The request's id, when one could be read.
    var id: String?
    /// What went wrong.
    var error: ErrorBody
}

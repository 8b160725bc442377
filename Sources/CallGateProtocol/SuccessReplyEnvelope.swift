/// The `{"id", "result"}` shape of a successful reply.
struct SuccessReplyEnvelope<Result: Encodable>: Encodable {
    /// The request's id.
    var id: String
    /// The op's result.
    var result: Result
}

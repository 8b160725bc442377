/// Reads only the `result` of a successful reply frame.
struct ResultEnvelope<Result: Decodable>: Decodable {
    /// The op's result.
    var result: Result
}

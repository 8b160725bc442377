/// The JSON body of every HTTP error: `{"error": {"code": string, "message": string}}`.
public struct HTTPErrorBody: Codable, Equatable, Sendable {
    /// The inner `error` object.
    public struct Detail: Codable, Equatable, Sendable {
        /// What kind of error, for programs.
        public var code: HTTPErrorCode
        /// What went wrong, for people; names the field for 400.
        public var message: String
    }

    /// The `error` object.
    public var error: Detail

    /// A body for `code` and `message`.
    public init(code: HTTPErrorCode, message: String) {
        self.error = Detail(code: code, message: message)
    }
}

/// The `error.code` values of HTTP error bodies (`{"error": {"code", "message"}}`).
public enum HTTPErrorCode: String, Codable, Sendable {
    /// 401: the admin key, or a user's token for the call log API, is missing or refused.
    case unauthorized = "ERR_UNAUTHORIZED"
    /// 400: bad JSON, a missing or wrong-typed field, or an invalid value.
    case badRequest = "ERR_BAD_REQUEST"
    /// 404: the group does not exist.
    case groupNotFound = "ERR_GROUP_NOT_FOUND"
    /// 404: no route has this path, or the user is not a member of the group.
    case notFound = "ERR_NOT_FOUND"
    /// 409: a recording URL for a recording id that several meetings under the session id have;
    /// `startedAt` in the body picks one.
    case ambiguousRecording = "ERR_AMBIGUOUS_RECORDING"
    /// 405: the path exists but not with this method; the response carries `Allow`.
    case methodNotAllowed = "ERR_METHOD_NOT_ALLOWED"
    /// 413: the body is over the size limit.
    case payloadTooLarge = "ERR_PAYLOAD_TOO_LARGE"
    /// 403: a WebSocket upgrade from a browser Origin that `--allowed-origin` does not list.
    case originNotAllowed = "ERR_ORIGIN_NOT_ALLOWED"
    /// 429: a WebSocket upgrade from a client address that has `--max-connections-per-address` open.
    case tooManyConnections = "ERR_TOO_MANY_CONNECTIONS"
    /// 503: a WebSocket upgrade while the process holds `--max-connections` sockets.
    case serverFull = "ERR_SERVER_FULL"
    /// 500: the server failed to produce a response; not caused by the request.
    case internalError = "ERR_INTERNAL"
    /// 503: `GET /readyz` while the call log store does not accept writes.
    case notReady = "ERR_NOT_READY"
    /// 503: a group change while the call log store is behind (see `ErrorCode.storeUnavailable`).
    case storeUnavailable = "ERR_STORE_UNAVAILABLE"
}

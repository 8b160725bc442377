/// CORS for the call log API: which pages on other origins may read it from a browser, by the
/// same `--allowed-origin` list that admits WebSocket upgrades.
///
/// The API authenticates with the user's token in a header (`Authorization: Bearer`, or
/// `authToken`), never with cookies, and no answer says `Access-Control-Allow-Credentials`: a
/// page on any origin can read only what the token it holds already lets it read. So an empty
/// list reflects every origin, as it admits every origin's WebSocket. An `Origin` that is not
/// one (over 300 bytes, or bytes outside visible ASCII) is never reflected, allowed list or not.
/// The admin API has no CORS: its key belongs on servers, not in pages. Pure; any thread.
extension OriginPolicy {
    /// How long a browser may cache a preflight's answer, in seconds.
    static let preflightMaxAge = 600

    /// The headers of every call log answer to a request with this `Origin` header (nil: none):
    /// `Vary: Origin` always (the answer depends on it), and `Access-Control-Allow-Origin` with
    /// the origin as sent when it is allowed.
    func crossOriginHeaders(for origin: String?) -> [(String, String)] {
        guard let origin, admitsCrossOrigin(origin) else { return [("Vary", "Origin")] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Origin`) on a call log path: 204 with the
    /// methods, headers and cache time a page may use, or 403 `ERR_ORIGIN_NOT_ALLOWED` for an
    /// origin that is not allowed.
    func preflight(from origin: String) -> HTTPResponse {
        guard admitsCrossOrigin(origin) else {
            return .error(403, .originNotAllowed, "this origin may not read the call log", headers: [("Vary", "Origin")])
        }
        return HTTPResponse(status: 204, headers: crossOriginHeaders(for: origin) + [
            ("Access-Control-Allow-Methods", "GET"),
            ("Access-Control-Allow-Headers", "Authorization, authToken, Content-Type"),
            ("Access-Control-Max-Age", String(Self.preflightMaxAge)),
        ])
    }

    /// Whether a page on `origin` may read call log answers.
    private func admitsCrossOrigin(_ origin: String) -> Bool {
        (1...300).contains(origin.utf8.count) && origin.utf8.allSatisfy { (0x21...0x7E).contains($0) } && allows(origin)
    }
}

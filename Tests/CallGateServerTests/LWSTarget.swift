import CallGateServer

/// What libwebsockets 4.1.6 hands the gateway for a raw request target, so router tests start
/// from what the real server sees: the path with `%XX` decoded (an invalid escape never
/// reaches the gateway: lws answers 403 itself), and the query split at unencoded `&` and `;`
/// into items with `%XX` and `+` decoded.
enum LWSTarget {
    /// A request for the raw `target` (path and query, still percent-encoded).
    static func request(
        _ method: HTTPMethod, _ target: String, headers: [String: String] = [:], body: [UInt8] = []
    ) -> HTTPRequest {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let items = parts.count > 1 ? queryItems(String(parts[1])) : []
        return HTTPRequest(method: method, path: decoded(parts[0]), queryItems: items, headers: headers, body: body)
    }

    static func queryItems(_ raw: String) -> [String] {
        raw.split(omittingEmptySubsequences: true) { $0 == "&" || $0 == ";" }
            .map { decoded($0.replacingOccurrences(of: "+", with: " ")[...]) }
    }

    /// `%XX` decoded to bytes, read as UTF-8 (invalid sequences become U+FFFD, as in `LWSContext`).
    private static func decoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            if byte == UInt8(ascii: "%"), let high = utf8[next...].first, let low = utf8[utf8.index(after: next)...].first,
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(next, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = next
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

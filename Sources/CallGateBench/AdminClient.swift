/// The admin HTTP API, as far as the generator needs it: creating groups. Blocking HTTP/1.1 over
/// a plain socket, one connection per request; any thread but the bench loop's.
///
/// A peer gateway that is not CallGate implements the same `PUT /v1/groups/{guid}`, so nothing
/// here depends on CallGate beyond that route.
public struct AdminClient: Sendable {
    public let host: String
    public let port: Int
    public let adminKey: String

    public init(host: String, port: Int, adminKey: String) {
        self.host = host
        self.port = port
        self.adminKey = adminKey
    }

    /// Creates or replaces group `guid` with `members`; throws unless the server answers 2xx.
    public func putGroup(_ guid: String, name: String, members: [String]) throws(BenchError) {
        let list = members.map { "\"\(RequestFrames.escaped($0))\"" }.joined(separator: ",")
        let body = "{\"name\":\"\(RequestFrames.escaped(name))\",\"members\":[\(list)]}"
        let (status, answer) = try request("PUT", "/v1/groups/\(guid)", body: body)
        guard (200..<300).contains(status) else {
            let detail = String(decoding: answer.prefix(200), as: UTF8.self)
            let hint = status == 401 ? " (is --admin-key the gateway's admin key?)" : ""
            throw BenchError("PUT /v1/groups/\(guid) answered \(status)\(hint): \(detail)")
        }
    }

    /// Sends one request and returns the status and body.
    func request(_ method: String, _ path: String, body: String?) throws(BenchError) -> (Int, [UInt8]) {
        let connection = try TCPConnection(host: host, port: port, timeout: 10)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAuthorization: Bearer \(adminKey)\r\n"
        head += "Connection: close\r\nContent-Length: \(body?.utf8.count ?? 0)\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        head += "\r\n"
        try connection.send(Array(head.utf8) + Array((body ?? "").utf8))
        var reader = HTTPResponseReader()
        while !reader.isComplete {
            let bytes = try connection.receive()
            if bytes.isEmpty { break }
            reader.append(bytes)
        }
        guard let status = reader.status else {
            throw BenchError("\(method) \(path): the server at \(host):\(port) sent no HTTP response")
        }
        return (status, reader.body)
    }
}

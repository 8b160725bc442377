import Foundation

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

/// A blocking TCP socket with send and receive timeouts, for the few admin HTTP requests and the
/// reachability check before a run. Any thread; never the bench loop's service thread.
final class TCPConnection {
    private let descriptor: Int32

    /// Connects to `host:port` (name or address) within `timeout` seconds.
    init(host: String, port: Int, timeout: Double = 5) throws(BenchError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw BenchError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard socket >= 0 else {
                lastError = errno
                continue
            }
            Self.setTimeout(socket, seconds: timeout)
            if Glibc.connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                descriptor = socket
                return
            }
            lastError = errno
            Glibc.close(socket)
        }
        throw BenchError(
            "cannot reach \(host):\(port) (\(String(cString: strerror(lastError)))): is the gateway running there?")
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw BenchError("sending to the server failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Up to `limit` bytes; empty at the end of the stream.
    func receive(limit: Int = 16_384) throws(BenchError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, limit, 0) }
        guard count >= 0 else {
            throw BenchError("reading from the server failed: \(String(cString: strerror(errno)))")
        }
        return Array(buffer.prefix(count))
    }

    private static func setTimeout(_ socket: Int32, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// Collects the bytes of one HTTP/1.1 response and tells when it is complete.
///
/// Understands `Content-Length`, `Transfer-Encoding: chunked` and responses that end with the
/// connection. Enough for the admin API's small JSON answers; a plain value, any thread.
struct HTTPResponseReader {
    private(set) var buffer: [UInt8] = []
    /// The status code once the status line arrived.
    private(set) var status: Int?
    private var headerEnd: Int?
    private var contentLength: Int?
    private var chunked = false

    /// Adds received bytes.
    mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
        guard headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: buffer) else { return }
        headerEnd = end + 4
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        if let statusLine = lines.first {
            let parts = statusLine.split(separator: " ")
            status = parts.count >= 2 ? Int(parts[1]) : nil
        }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "content-length" { contentLength = Int(value) }
            if name == "transfer-encoding", value.lowercased().contains("chunked") { chunked = true }
        }
    }

    /// Whether the whole response is here (a response without length ends with the stream).
    var isComplete: Bool {
        guard let headerEnd else { return false }
        if let contentLength { return buffer.count - headerEnd >= contentLength }
        if chunked { return Self.find(Array("0\r\n\r\n".utf8), in: Array(buffer[headerEnd...])) != nil }
        return false
    }

    /// The body, de-chunked; only meaningful once complete (or once the stream ended).
    var body: [UInt8] {
        guard let headerEnd else { return [] }
        let raw = Array(buffer[headerEnd...])
        if let contentLength { return Array(raw.prefix(contentLength)) }
        guard chunked else { return raw }
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = Self.find([13, 10], in: Array(raw[index...])).map({ $0 + index }) {
            let sizeText = String(decoding: raw[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size <= raw.count else { break }
            body += raw[start..<(start + size)]
            index = start + size + 2
            guard index < raw.count else { break }
        }
        return body
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}

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

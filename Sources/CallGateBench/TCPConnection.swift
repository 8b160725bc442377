import Foundation

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

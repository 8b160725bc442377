import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client written by hand on a blocking TCP socket, for what the real client does
/// not do: send any `Origin`, read the HTTP status of a refused upgrade, leave pings unanswered,
/// stop reading, see every frame as it came off the wire. Every blocking call runs through `offPool`, off Swift concurrency's threads.
public final class RawWebSocket: @unchecked Sendable {
    /// One server frame (servers do not mask).
    public struct Frame: Sendable {
        public let opcode: UInt8
        public let payload: [UInt8]

        public var text: String { String(decoding: payload, as: UTF8.self) }
        /// The close code of a close frame.
        public var closeCode: UInt16? {
            opcode == 0x8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    /// What a read found.
    public enum Read: Sendable {
        case frame(Frame)
        /// The server closed the TCP connection.
        case endOfStream
        case timedOut
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private var fd: Int32
    /// The status of the upgrade response: 101 when upgraded, 0 when the server hung up first.
    public private(set) var status = 0
    /// The body of a refused upgrade.
    public private(set) var body = ""
    private var buffer: [UInt8] = []

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Connects to the server on `port` from `sourceAddress`, sends the upgrade for `/ws` with
    /// `origin` and `subprotocol` (none when nil), and reads the response. `receiveBufferBytes`
    /// shrinks the kernel's receive buffer first, so that a socket that stops reading fills up
    /// quickly.
    public static func open(
        port: Int, origin: String? = nil, subprotocol: String? = "callgate.v1", sourceAddress: String = "127.0.0.1",
        receiveBufferBytes: Int32? = nil
    ) async throws -> RawWebSocket {
        var request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let origin { request += "Origin: \(origin)\r\n" }
        return try await exchange(
            port: port, sending: request + "\r\n", sourceAddress: sourceAddress, receiveBufferBytes: receiveBufferBytes)
    }

    /// Connects to the gateway on `port` from `sourceAddress` and sends `bytes` as they are (any
    /// HTTP request, half a request, nothing); with `readsResponse`, reads the response.
    public static func exchange(
        port: Int, sending bytes: String, sourceAddress: String = "127.0.0.1", receiveBufferBytes: Int32? = nil,
        readsResponse: Bool = true
    ) async throws -> RawWebSocket {
        try await offPool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket() failed") }
            let raw = RawWebSocket(fd: fd)
            if var size = receiveBufferBytes {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            try raw.bind(to: sourceAddress)
            try raw.connect(port: port)
            if !bytes.isEmpty {
                try raw.write(Array(bytes.utf8))
            }
            if readsResponse {
                raw.readResponse()
            }
            return raw
        }
    }

    /// Closes the TCP connection in both directions, without a close frame.
    public func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Aborts the TCP connection (an RST, whatever is unread or unsent), as a crashed client or
    /// a dropped network path does. Nothing can be read or sent afterwards.
    public func reset() {
        guard fd >= 0 else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(fd)
        fd = -1
    }

    /// Sends one masked text frame.
    public func send(_ text: String) async throws {
        try await offPool { try self.write(Self.maskedFrame(Array(text.utf8))) }
    }

    /// Sends one masked ping frame carrying `payload` (at most 125 bytes).
    public func ping(_ payload: [UInt8]) async throws {
        try await offPool { try self.write(Self.maskedFrame(payload, opcode: 0x9)) }
    }

    /// Sends `connect` with `token` and returns the reply frame's text.
    public func connect(token: String) async throws -> String {
        try await send(#"{"id":"raw-connect","op":"connect","data":{"token":"\#(token)"}}"#)
        return try await nextText(within: .seconds(5))
    }

    /// The next frame, the end of the stream, or `.timedOut` after `timeout`. Pings are
    /// returned like any frame and never answered.
    public func read(within timeout: Duration) async -> Read {
        (try? await offPool { self.readFrame(timeout: timeout) }) ?? .endOfStream
    }

    /// The next read that is not a ping, and how many pings came before it (never answered).
    public func readSkippingPings(within timeout: Duration) async -> (read: Read, pings: Int) {
        var pings = 0
        while true {
            let read = await read(within: timeout)
            guard case .frame(let frame) = read, frame.opcode == 0x9 else { return (read, pings) }
            pings += 1
        }
    }

    /// The text of the next text frame, skipping pings.
    public func nextText(within timeout: Duration) async throws -> String {
        while true {
            switch await read(within: timeout) {
            case .frame(let frame) where frame.opcode == 0x1:
                return frame.text
            case .frame(let frame) where frame.opcode == 0x9:
                continue
            case let other:
                throw Failure(description: "expected a text frame, got \(other)")
            }
        }
    }

    // MARK: blocking parts

    private func bind(to address: String) throws {
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, address, &local.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "cannot bind \(address)") }
    }

    private func connect(port: Int) throws {
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to port \(port)") }
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed") }
            offset += sent
        }
    }

    /// Reads more bytes into `buffer`; false at the end of the stream, on error or on timeout
    /// (`timedOut` tells which).
    private func fill(timedOut: inout Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 {
            buffer += chunk.prefix(count)
            return true
        }
        timedOut = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        return false
    }

    /// Reads the upgrade response: the status line, the headers and, for a refusal, the body.
    private func readResponse() {
        var timedOut = false
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                if status != 101 {
                    while fill(timedOut: &timedOut) {}
                    body = String(decoding: buffer, as: UTF8.self)
                }
                return
            }
            guard fill(timedOut: &timedOut) else { return }
        }
    }

    private func readFrame(timeout: Duration) -> Read {
        var time = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var timedOut = false
        while true {
            if let (frame, size) = Self.parse(buffer) {
                buffer.removeFirst(size)
                return .frame(frame)
            }
            guard fill(timedOut: &timedOut) else { return timedOut ? .timedOut : .endOfStream }
        }
    }

    /// A whole frame at the start of `bytes` and its size, or nil when more bytes are needed.
    private static func parse(_ bytes: [UInt8]) -> (Frame, Int)? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return (Frame(opcode: bytes[0] & 0x0f, payload: Array(bytes[offset..<offset + length])), offset + length)
    }

    private static func maskedFrame(_ payload: [UInt8], opcode: UInt8 = 0x1) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }
}

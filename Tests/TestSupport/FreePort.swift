import Foundation

/// A TCP port on 127.0.0.1 that nothing listens on right now, for a child process (nginx,
/// PostgreSQL, Redis) that cannot pick port 0 and report it. The port is picked below the kernel's
/// ephemeral range: a port from that range can be taken by any outgoing connection or port-0 bind
/// (another test's server, a node's connection to Redis) before the child binds it. Only another
/// picker can still take it first; the child then fails to start, and the test says so rather than
/// passing.
public enum FreePort {
    /// Why no port could be picked.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The lowest port tried: below it live well-known services.
    static let lowest = 10_000

    public static func pick() throws -> Int {
        let highest = ephemeralLow() - 1
        for _ in 0..<200 {
            let port = Int.random(in: lowest...highest)
            if try bindable(port) { return port }
        }
        throw Failure(description: "no free loopback port between \(lowest) and \(highest)")
    }

    /// The lowest port the kernel gives outgoing connections and port-0 binds (32768 when unknown).
    static func ephemeralLow() -> Int {
        let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let low = range?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return max(low, lowest + 1)
    }

    /// Whether a loopback listener could bind `port` now.
    static func bindable(_ port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

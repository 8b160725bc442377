import Foundation

/// A TCP port on 127.0.0.1 that nothing listens on right now, for a child process (nginx,
/// PostgreSQL) that cannot pick port 0 and report it. Something else may take it before the child
/// binds it; the child then fails to start, and the test says so rather than passing.
public enum FreePort {
    /// Why no port could be picked.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func pick() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "cannot bind a loopback port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

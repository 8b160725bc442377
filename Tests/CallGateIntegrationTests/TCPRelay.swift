import Foundation
import TestSupport

/// A TCP relay (Debian's socat) between clients and a gateway, whose connections a test cuts
/// the way a lost network does: no close frame, no goodbye, both ends just see the socket end.
/// Each connection through it is carried by a socat child of its own; cutting kills them.
final class TCPRelay: @unchecked Sendable {
    /// Where clients connect.
    let port: Int
    private let process = Process()

    /// Starts relaying 127.0.0.1:`port` to 127.0.0.1:`target`; returns once it listens.
    init(to target: Int) async throws {
        port = try FreePort.pick()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        process.arguments = ["TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "TCP:127.0.0.1:\(target)"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(5)
        while !Self.listening(on: port), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard Self.listening(on: port) else {
            stop()
            throw RelayFailure(description: "socat did not listen on \(port)")
        }
    }

    struct RelayFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// `ws://` address of the gateway's WebSocket endpoint through the relay.
    var url: URL {
        URL(string: "ws://127.0.0.1:\(port)/ws")!
    }

    /// Cuts every connection through the relay at once; new connections go through.
    func cutAll() {
        for child in children() {
            kill(child, SIGKILL)
        }
    }

    /// How many connections the relay carries now.
    var connections: Int {
        children().count
    }

    /// Stops the relay and cuts its connections. (Not `waitUntilExit`: off the main thread,
    /// Foundation spins a run loop on a core while it waits.)
    func stop() {
        cutAll()
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    deinit {
        stop()
    }

    /// socat's children: one per connection.
    private func children() -> [pid_t] {
        let parent = process.processIdentifier
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { return nil }
            let fields = stat[afterName.upperBound...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    /// Whether a socket listens on 127.0.0.1:`port`, from the kernel's table (a probe
    /// connection would itself go through the relay).
    private static func listening(on port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }
}

import Foundation
import LWS

/// A client-only `LWSContext` whose service thread runs the Redis code under test, as the
/// gateway's does; `onLoop` runs a closure there and hands its result back.
final class LoopHarness: @unchecked Sendable {
    let context: LWSContext
    private let sockets = NoSockets()

    init() throws {
        context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "callgate.test"))
        try context.start(webSocketDelegate: sockets)
    }

    /// Runs `body` on the service thread and returns what it returned.
    func onLoop<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            context.post { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body`, then stops the context however `body` ended.
    func stopping(after body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// Stops the context (its shutdown hooks close the Redis connections); blocks until the
    /// service thread ended, off the cooperative pool.
    func stop() async {
        let context = context
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                context.stop()
                continuation.resume()
            }
        }
    }
}

/// No WebSockets in these tests.
private final class NoSockets: WebSocketDelegate {
    func webSocketDidOpen(_ connection: WebSocketConnection) {}
    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {}
    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {}
}

/// What callbacks on the service thread report, for a test to wait on in order.
final class Events<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Event] = []

    func append(_ event: Event) {
        lock.withLock { items.append(event) }
    }

    var all: [Event] { lock.withLock { items } }

    /// Waits up to `seconds` for an event matching `predicate`, and returns the first such.
    func wait(seconds: Double = 10, for predicate: (Event) -> Bool) async -> Event? {
        let deadline = Date.now.addingTimeInterval(seconds)
        while Date.now < deadline {
            if let found = lock.withLock({ items.first(where: predicate) }) {
                return found
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Waits up to `seconds` until `count` events match `predicate`; how many matched then.
    func wait(seconds: Double = 10, forCount count: Int, of predicate: (Event) -> Bool) async -> Int {
        let deadline = Date.now.addingTimeInterval(seconds)
        var matched = 0
        while true {
            matched = lock.withLock { items.filter(predicate).count }
            if matched >= count || Date.now >= deadline {
                return matched
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Forgets what was reported so far.
    func clear() {
        lock.withLock { items.removeAll() }
    }
}

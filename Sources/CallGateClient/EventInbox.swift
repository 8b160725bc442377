import CallGateProtocol
import Foundation
import Synchronization

/// A buffered queue of client events with one waiting reader and an optional timeout.
final class EventInbox: Sendable {
    private struct State {
        var buffer: [ClientEvent] = []
        var head = 0
        var waiter: (id: UInt64, continuation: CheckedContinuation<ClientEvent?, Never>)?
        var nextWaiterID: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// Adds an event, handing it straight to a waiting reader if there is one.
    func put(_ event: ClientEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<ClientEvent?, Never>? in
            if case .closed = event { state.finished = true }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.buffer.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// The next event, or nil when none came within `timeout` or the inbox is drained after the close.
    func next(timeout: Duration?) async -> ClientEvent? {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                if state.head < state.buffer.count {
                    let event = state.buffer[state.head]
                    state.head += 1
                    if state.head == state.buffer.count {
                        state.buffer.removeAll()
                        state.head = 0
                    }
                    continuation.resume(returning: event)
                    return nil
                }
                if state.finished {
                    continuation.resume(returning: nil)
                    return nil
                }
                state.nextWaiterID += 1
                state.waiter = (state.nextWaiterID, continuation)
                return state.nextWaiterID
            }
            guard let id, let timeout else { return }
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<ClientEvent?, Never>? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: nil)
    }
}

/// Something the server did on its own, as a client sees it.
public enum ClientEvent: Sendable {
    /// A push frame, typed.
    case push(Push)
    /// A reply that matches no pending request (e.g. the error for a frame without a readable id).
    case unmatchedReply(id: String?, outcome: ReplyOutcome)
    /// A frame that is not JSON of protocol v1 (or names an unknown event), kept as it came.
    case unreadableFrame(Data)
    /// A `ReconnectingClient` lost its socket and is connected again: the new connect result,
    /// with how the recovery went. The pushes it recovered follow.
    case reconnected(ConnectResult)
    /// The socket closed; `code` is the close code the server sent, if any. Always the last event.
    case closed(code: UInt16?)
}

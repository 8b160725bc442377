import Foundation

/// A locked queue of work items that other threads hand to the service thread.
///
/// Any thread may `post`; only the service thread calls `drain`, from
/// `LWS_CALLBACK_EVENT_WAIT_CANCELLED`, after the poster woke it with `lws_cancel_service`.
final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [@Sendable () -> Void] = []

    /// Appends a work item; returns whether the mailbox was empty before (the caller then wakes the loop).
    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        items.append(work)
        return items.count == 1
    }

    /// Runs every queued item in order, including items posted while draining.
    func drain() {
        while true {
            lock.lock()
            let batch = items
            items.removeAll(keepingCapacity: true)
            lock.unlock()
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}

/// Carries a service-thread object through a `@Sendable` closure that will run on that same thread.
///
/// The box promises nothing by itself: whoever opens it must be on the owning service thread,
/// typically inside `LWSContext.post`.
public struct ServiceThreadBox<Value>: @unchecked Sendable {
    /// The object; touch it on its service thread only.
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}

import Foundation

/// Carries an async result back to the blocked thread; the semaphore orders the accesses.
private final class Box<T>: @unchecked Sendable {
    var value: T?
}

/// Blocks the calling thread until `body` finishes: libFuzzer's entry point is synchronous and
/// the token and HTTP code under test is async.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM, caught so that `serve` can shut down in order instead of dying.
final class TerminationSignals {
    private let sources: [any DispatchSourceSignal]

    init() {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
    }

    /// Waits for the first of the two signals and returns its number.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let once = OnceFlag()
            for source in sources {
                let number = Int32(source.handle)
                source.setEventHandler {
                    if once.claim() { continuation.resume(returning: number) }
                }
                source.resume()
            }
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// A flag that lets exactly one caller through, from any thread.
final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// True for the first caller only.
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }
}

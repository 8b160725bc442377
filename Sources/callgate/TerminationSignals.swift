import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught so that `serve` can drain and shut down in order instead of dying,
/// and the console commands can hang up first.
final class TerminationSignals {
    private let sources: [any DispatchSourceSignal]
    /// Every signal caught, in order: SIGINT or SIGTERM.
    let received: AsyncStream<Int32>

    /// Starts catching both signals (they no longer end the process).
    init() {
        let (received, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.received = received
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Waits for the first signal and returns its number.
    func next() async -> Int32 {
        var iterator = received.makeAsyncIterator()
        return await iterator.next() ?? SIGTERM
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

import CoreMetrics
import Metrics
import Prometheus

/// What the call log writer reports: how long each committed batch took, how many writes it
/// held, and how many attempts failed.
///
/// Made by ``GatewayMetrics`` with its factory; used on the writer thread. Sendable: its
/// metrics are atomics and locked histograms.
final class StoreMetrics: Sendable {
    /// The name of the commit-time histogram.
    static let writeSecondsName = "callgate_store_write_seconds"
    /// The name of the batch-size histogram.
    static let batchSizeName = "callgate_store_batch_size"
    /// Commit times from an unsynced commit (tens of microseconds) to a disk in trouble (seconds).
    static let writeBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]
    /// Writes per batch: one at low load, hundreds when group commit gathers many calls.
    static let batchSizeBuckets: [Double] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000]

    private let writeSeconds: CoreMetrics.Timer
    private let batchSize: Recorder
    private let failures: CoreMetrics.Counter
    private let deadLetters: CoreMetrics.Counter

    /// Registers the store metrics through `factory`, whose buckets for ``writeSecondsName``
    /// and ``batchSizeName`` should be set.
    init(factory: PrometheusMetricsFactory) {
        writeSeconds = CoreMetrics.Timer(label: Self.writeSecondsName, factory: factory)
        batchSize = Recorder(label: Self.batchSizeName, aggregate: true, factory: factory)
        failures = CoreMetrics.Counter(label: "callgate_store_write_failures_total", factory: factory)
        deadLetters = CoreMetrics.Counter(label: "callgate_store_dead_letters_total", factory: factory)
    }

    /// A batch of `writes` writes committed in `duration`.
    func committed(writes: Int, in duration: Duration) {
        writeSeconds.record(duration: duration)
        batchSize.record(writes)
    }

    /// An attempt to commit a batch failed (it is retried, or its bad writes set aside).
    func writeFailed() {
        failures.increment()
    }

    /// A write the store refused for good was set aside in the dead-letter file.
    func deadLettered() {
        deadLetters.increment()
    }
}

/// `idle`: the sockets stay connected and silent for the duration; only the connect phase and
/// the server's memory are measured. Service thread of the bench loop.
final class IdleDriver: ScenarioDriver {
    private unowned let engine: BenchEngine

    init(engine: BenchEngine) {
        self.engine = engine
    }

    var tickMicroseconds: Int64 { 100_000 }
    var isDrained: Bool { true }

    func start(now: UInt64) {}
    func tick(now: UInt64) {}
    func stopStarting() {}
    func ready(_ socket: BenchSocket, now: UInt64) {}
    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {}

    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64) {
        engine.metrics.error("UNEXPECTED_PUSH")
    }

    func closed(_ socket: BenchSocket, now: UInt64) -> Bool { false }
    func abandonStalled(now: UInt64, limit: UInt64) {}

    func progressText(elapsedSeconds: Double) -> String {
        "holding"
    }
}

/// What one scenario does with the connected sockets. Every method runs on the bench loop's
/// service thread; times are monotonic nanoseconds.
protocol ScenarioDriver: AnyObject {
    /// How often `tick` runs, in microseconds.
    var tickMicroseconds: Int64 { get }
    /// Whether nothing the driver started is still under way (checked after `stopStarting`).
    var isDrained: Bool { get }
    /// Every socket is connected: the measured part begins.
    func start(now: UInt64)
    /// Periodic: start what the rate says is due.
    func tick(now: UInt64)
    /// The duration is over: start nothing new, let what runs finish.
    func stopStarting()
    /// A socket authenticated again after a reconnect.
    func ready(_ socket: BenchSocket, now: UInt64)
    /// A reply to a request the driver sent (`connect` replies are the engine's).
    func reply(_ kind: RequestKind, on socket: BenchSocket, fields: FrameFields, now: UInt64)
    /// A push.
    func push(_ kind: PushKind, on socket: BenchSocket, fields: FrameFields, now: UInt64)
    /// A ready socket closed; returns whether the driver expected it (churn), else it is an error.
    func closed(_ socket: BenchSocket, now: UInt64) -> Bool
    /// Once a second: give up on work stuck longer than `limit` nanoseconds.
    func abandonStalled(now: UInt64, limit: UInt64)
    /// A short account of progress for the progress line.
    func progressText(elapsedSeconds: Double) -> String
}

/// What happened during a run, counted; the integration tests check these add up.
public struct BenchCounts: Codable, Sendable, Equatable {
    /// Sockets authenticated in the connect phase.
    public var connected = 0
    /// Sockets that failed to connect or authenticate in the connect phase.
    public var connectFailures = 0
    /// `initiateCall` requests sent.
    public var initiated = 0
    /// `initiateCall` requests the server accepted.
    public var initiateAccepted = 0
    /// `onIncomingCallReceived` pushes of 1:1 calls (ring, churn).
    public var incoming = 0
    /// `onOutgoingCallAccepted` pushes the callers received.
    public var accepted = 0
    /// `onCallEndedMessageReceived` pushes the callees received.
    public var ended = 0
    /// Calls (ring, churn) or group rings (group) that went through their whole cycle.
    public var completed = 0
    /// Group: `onIncomingCallReceived` pushes, one per member per ring.
    public var deliveries = 0
    /// Group: rings that reached every member.
    public var fanouts = 0
    /// Group: `onIncomingCallCanceled` pushes after the caller cancelled.
    public var cancelled = 0
    /// Churn: sockets closed on purpose.
    public var disconnects = 0
    /// Churn: sockets that connected and authenticated again.
    public var reconnects = 0
    /// Calls or rings that were due but not started: every pair or group was still busy.
    public var skipped = 0
    /// Frames sent and received over the whole run.
    public var framesSent = 0
    public var framesReceived = 0

    public init() {}
}

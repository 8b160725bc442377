import CallGateProtocol

/// What one Core operation did: the reply for the connection that asked, and every effect the
/// server must carry out, produced by the transition itself.
///
/// The server handles every outcome the same way: it hands `logChanges` (and `webhookEvents`, in
/// the same transaction) to the store writer, sends the reply, then the deliveries in order (the reply and pushes wait for the write when
/// they reveal a finished call), counts `finishedCalls`, and arms its timer for `nextDeadline`.
public struct Outcome<Reply: Sendable>: Sendable {
    /// The answer for the asking connection, or why the op was refused. Timers and disconnects
    /// answer nobody: their reply is `()`.
    public var reply: Result<Reply, CoreError>
    /// Pushes to send after the reply, in order; empty when the op was refused.
    public var deliveries: [Delivery]
    /// Every call log entry the op created or changed, as it stands now, oldest call first.
    public var logChanges: [CallLogRecord]
    /// The rung calls the op brought to their final status (each once), as they ended.
    public var finishedCalls: [Call]
    /// What the app's backend is told about the op, in order: written to the webhook outbox
    /// with `logChanges`, so an event is sent exactly when the change it reports is durable.
    public var webhookEvents: [WebhookEvent]
    /// The users whose engagement (the call they are in, or whether it was answered) the op
    /// changed, each once: in cluster mode the server writes each one's busy claim from
    /// `GatewayCore.engagement(of:)`.
    public var engagements: [String]
    /// The Core's earliest timer deadline after the op, on the clock's monotonic milliseconds;
    /// nil when no timer is pending. The server calls `fireDueTimers` when it passes.
    public var nextDeadline: Int64?

    /// Makes an outcome.
    public init(
        reply: Result<Reply, CoreError>, deliveries: [Delivery] = [], logChanges: [CallLogRecord] = [],
        finishedCalls: [Call] = [], webhookEvents: [WebhookEvent] = [], engagements: [String] = [],
        nextDeadline: Int64? = nil
    ) {
        self.reply = reply
        self.deliveries = deliveries
        self.logChanges = logChanges
        self.finishedCalls = finishedCalls
        self.webhookEvents = webhookEvents
        self.engagements = engagements
        self.nextDeadline = nextDeadline
    }

    /// The same effects with the reply transformed (for the wire shape of a reply).
    public func mapReply<Other>(_ transform: (Reply) -> Other) -> Outcome<Other> {
        Outcome<Other>(
            reply: reply.map(transform), deliveries: deliveries, logChanges: logChanges,
            finishedCalls: finishedCalls, webhookEvents: webhookEvents, engagements: engagements,
            nextDeadline: nextDeadline)
    }
}

extension Outcome: Equatable where Reply: Equatable {}

/// One push for every device of some users: the server resolves the users to sockets where it
/// sends (this process's sockets, in single-process mode), encodes the push once and sends the
/// same bytes to each.
public struct Delivery: Hashable, Sendable {
    /// What to send.
    public var push: Push
    /// Whose devices get it, in order, each uid once.
    public var users: [String]
    /// The one device that does not get it: the connection that asked, which gets the reply
    /// instead; nil for none.
    public var excluding: ConnectionID?

    /// Makes a delivery.
    public init(push: Push, users: [String], excluding: ConnectionID? = nil) {
        self.push = push
        self.users = users
        self.excluding = excluding
    }
}

/// Collects what one op or timer run did besides its reply: the pushes (dropping those
/// addressed to nobody), the webhook events, the calls it finished and the users whose
/// engagement it changed, each in the order they happened. Every op is handed one
/// (`GatewayCore.transition`), which becomes its `Outcome`.
struct EffectList {
    /// Whether `report` keeps what it is given (`GatewayCore.reportsWebhookEvents`).
    let reportsWebhookEvents: Bool
    /// The deliveries so far, in the order they were added.
    private(set) var deliveries: [Delivery] = []
    /// The webhook events so far, in the order they happened.
    private(set) var webhookEvents: [WebhookEvent] = []
    /// The calls finished so far, as they ended.
    private(set) var finishedCalls: [Call] = []
    /// The users whose engagement changed so far, each once, in the order they first changed.
    private(set) var engagements: [String] = []
    private var engaged: Set<String> = []

    init(reportsWebhookEvents: Bool) {
        self.reportsWebhookEvents = reportsWebhookEvents
    }

    /// The op was refused: it tells nobody anything (its pushes and webhook events go); what it
    /// changed before it threw (calls finished, engagements, log entries) still stands.
    mutating func refused() {
        deliveries.removeAll()
        webhookEvents.removeAll()
    }

    /// The call finished as `call`.
    mutating func finished(_ call: Call) {
        finishedCalls.append(call)
    }

    /// The engagement of `uid` (the call they are in, or whether it was answered) changed.
    mutating func engagementChanged(_ uid: String) {
        if engaged.insert(uid).inserted {
            engagements.append(uid)
        }
    }

    /// Adds an event for the app's backend; `data` is not even made while none is reported.
    mutating func report(_ type: WebhookEventType, _ data: @autoclosure () -> WebhookData) {
        guard reportsWebhookEvents else { return }
        webhookEvents.append(WebhookEvent(type: type, data: data()))
    }

    /// Adds `push` for every device of `users` but `excluded`, unless `users` is empty.
    mutating func send(_ push: Push, to users: [String], excluding excluded: ConnectionID? = nil) {
        guard !users.isEmpty else { return }
        deliveries.append(Delivery(push: push, users: users, excluding: excluded))
    }
}

import CallGateProtocol

/// Where webhook endpoints and their deliveries are kept: the outbox, shared by every node of a
/// cluster.
///
/// An event enters it through `CallLogStore.apply` (`StoreWrite.webhook`), in the transaction
/// of the call log change it reports, as one delivery per enabled endpoint that wants its type.
/// A dispatcher claims due deliveries for a while (a lease: `WebhookClaim`), posts them, and
/// records each attempt here; only the holder of a claim records a result, so a delivery is
/// attempted by one node at a time and a late answer cannot undo a newer one. A delivery is due
/// when it is pending, its next attempt time passed, nobody holds a live claim on it, its
/// endpoint is enabled, and no earlier delivery of the same session to the same endpoint is
/// pending: per call, in order.
///
/// Thread-safe; every call may block on disk, so none runs on the service thread.
public protocol WebhookOutbox: Sendable {
    /// Every endpoint, oldest first.
    func webhookEndpoints() throws -> [WebhookEndpoint]
    /// Creates or replaces the endpoint with `endpoint.id`.
    func putWebhookEndpoint(_ endpoint: WebhookEndpoint) throws
    /// Removes an endpoint and its deliveries; false when there was none. Attempts in flight to
    /// it end without a trace: their results find no delivery to record.
    func deleteWebhookEndpoint(id: String) throws -> Bool
    /// Claims due deliveries for `claim.holder` until `claim.until`: for each endpoint of
    /// `claim.room`, up to its room, oldest due first. On PostgreSQL the rows are taken with
    /// `FOR UPDATE SKIP LOCKED`, so two nodes claiming at once get different deliveries.
    func claimWebhookDeliveries(_ claim: WebhookClaim) throws -> [WebhookDelivery]
    /// When a delivery to one of `endpoints` may next be claimed (Unix ms): the earliest next
    /// attempt, or the end of a claim someone holds; nil for none pending.
    func nextWebhookAttempt(endpoints: Set<String>) throws -> Int64?
    /// Records attempts made under `holder`'s claims and what each left its delivery
    /// (delivered, failed, or pending until a later time, and its session's later deliveries with
    /// it), ending the claims; an attempt answered 410 disables its endpoint. An attempt whose claim `holder` no longer holds (it lapsed and
    /// another node took the delivery, or the endpoint was deleted) is not recorded. Returns how
    /// many were.
    @discardableResult
    func recordWebhookAttempts(_ attempts: [WebhookAttempt], holder: String) throws -> Int
    /// Ends every claim `holder` still holds: those deliveries are due again at once.
    func releaseWebhookClaims(holder: String) throws
    /// At a node's start: ends the claims a previous run of `node` left (holders `node/...`),
    /// those deliveries due at `now`; with `everyPending` (a single process, whose every pending
    /// delivery was its own) makes every pending delivery due at `now`, so they are attempted at
    /// once.
    func resumeWebhookDeliveries(at now: Int64, node: String, everyPending: Bool) throws
    /// The newest `limit` deliveries to `endpoint`, with their attempts.
    func webhookDeliveries(endpoint: String, limit: Int) throws -> [WebhookDeliveryRecord]
    /// The newest `limit` deliveries of events about session `sessionId`, to every endpoint,
    /// with their attempts (a call's timeline).
    func webhookDeliveries(sessionId: String, limit: Int) throws -> [WebhookDeliveryRecord]
    /// Makes delivery `id` to `endpoint` pending and due at `now` again (whatever its status),
    /// keeping its message id; false when that endpoint has no such delivery. Its retry period
    /// counts from `now` for expiry, so it gets its attempt.
    func redeliverWebhook(id: Int64, endpoint: String, at now: Int64) throws -> Bool
    /// Per endpoint with a pending delivery: how many are pending and since when the oldest waits.
    func webhookBacklogs() throws -> [String: WebhookBacklog]
    /// Gives up pending deliveries nobody holds a claim on: those whose event happened (or that
    /// were redelivered) before `cutoff` (Unix ms; failure reason `expired`), and per endpoint the
    /// oldest beyond the newest `backlogLimit` (`backlog`). They are marked failed at `now`, their
    /// lapsed claims ended.
    func expireWebhookDeliveries(createdBefore cutoff: Int64, backlogLimit: Int, at now: Int64) throws -> WebhookExpiry
    /// Deletes the deliveries that were delivered or failed before `cutoff` (Unix ms), and the
    /// messages no delivery needs any more. Returns how many deliveries went.
    func pruneWebhookDeliveries(finishedBefore cutoff: Int64) throws -> Int
}

/// A dispatcher's request for deliveries: who claims, for how long, and how many per endpoint.
public struct WebhookClaim: Hashable, Sendable {
    /// Who holds the claims: `node/run`, unique to one run of one node.
    public var holder: String
    /// The time the claims are made at, Unix ms.
    public var now: Int64
    /// When the claims lapse unless recorded, Unix ms: after it another node may take them.
    public var until: Int64
    /// Endpoint id -> how many deliveries to it may be claimed.
    public var room: [String: Int]

    /// Makes a claim request.
    public init(holder: String, now: Int64, until: Int64, room: [String: Int]) {
        self.holder = holder
        self.now = now
        self.until = until
        self.room = room
    }

    /// The holder for one run of `node`: `node/run`.
    public static func holder(node: String, run: String) -> String {
        node + "/" + run
    }
}

/// Why a delivery was given up.
public enum WebhookFailureReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// The endpoint answered 410 Gone (and was disabled).
    case gone
    /// The retry period passed before it was delivered.
    case expired
    /// Its endpoint's backlog was over the cap and it was among the oldest.
    case backlog
}

/// What `expireWebhookDeliveries` gave up.
public struct WebhookExpiry: Hashable, Sendable {
    /// Deliveries past the retry period.
    public var expired: Int
    /// Deliveries beyond their endpoint's backlog cap.
    public var overflowed: Int

    /// Makes a count.
    public init(expired: Int, overflowed: Int) {
        self.expired = expired
        self.overflowed = overflowed
    }
}

/// A receiver of webhooks: a URL, the secrets its payloads are signed with, and the event types
/// it wants.
public struct WebhookEndpoint: Codable, Hashable, Sendable {
    /// `ep_` and random characters, or `default` for the one `--webhook-url` configures.
    public var id: String
    /// Where deliveries are POSTed (http or https).
    public var url: String
    /// Signing secrets (`whsec_` and base64), newest first: every one not expired signs, so a
    /// receiver keeps verifying while a secret rotates.
    public var secrets: [WebhookSecret]
    /// The event types it wants; nil for every type.
    public var eventTypes: [WebhookEventType]?
    /// Whether deliveries are attempted; an endpoint that answered 410 Gone is disabled.
    public var enabled: Bool
    /// Why it was disabled, nil while enabled.
    public var disabledReason: String?
    /// When it was created, Unix ms.
    public var createdAt: Int64

    /// Makes an endpoint.
    public init(
        id: String, url: String, secrets: [WebhookSecret], eventTypes: [WebhookEventType]? = nil, enabled: Bool = true,
        disabledReason: String? = nil, createdAt: Int64
    ) {
        self.id = id
        self.url = url
        self.secrets = secrets
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.disabledReason = disabledReason
        self.createdAt = createdAt
    }

    /// Whether it wants events of `type`.
    public func wants(_ type: WebhookEventType) -> Bool {
        eventTypes.map { $0.contains(type) } ?? true
    }

    /// The secrets that still sign at `now` (Unix ms).
    public func signingSecrets(at now: Int64) -> [String] {
        secrets.filter { $0.expiresAt.map { $0 > now } ?? true }.map(\.value)
    }
}

/// One signing secret of an endpoint.
public struct WebhookSecret: Codable, Hashable, Sendable {
    /// `whsec_` and the base64 of the key bytes.
    public var value: String
    /// When it stops signing (Unix ms): set when a newer secret replaces it; nil for never.
    public var expiresAt: Int64?

    /// Makes a secret.
    public init(value: String, expiresAt: Int64? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }
}

/// Where a delivery stands.
public enum WebhookDeliveryStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Waiting for its next attempt.
    case pending
    /// The endpoint answered 2xx.
    case delivered
    /// Given up: the retry period passed, or the endpoint answered 410 Gone.
    case failed
}

/// One message due for one endpoint: what the dispatcher posts.
public struct WebhookDelivery: Hashable, Sendable {
    /// The delivery's number, increasing in the order events happened.
    public var id: Int64
    /// The endpoint it goes to.
    public var endpoint: WebhookEndpoint
    /// The message id (`webhook-id`).
    public var messageID: String
    /// The event type.
    public var type: WebhookEventType
    /// The session it is about.
    public var sessionId: String
    /// The payload, exactly as first written.
    public var body: String
    /// How many attempts were made before this one.
    public var attempts: Int
    /// When the event happened (Unix ms): the retry period counts from it.
    public var createdAt: Int64

    /// Makes a delivery.
    public init(
        id: Int64, endpoint: WebhookEndpoint, messageID: String, type: WebhookEventType, sessionId: String,
        body: String, attempts: Int, createdAt: Int64
    ) {
        self.id = id
        self.endpoint = endpoint
        self.messageID = messageID
        self.type = type
        self.sessionId = sessionId
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// One attempt to post a delivery, and where it left the delivery.
public struct WebhookAttempt: Codable, Hashable, Sendable {
    /// The delivery.
    public var deliveryID: Int64
    /// When it started, Unix ms.
    public var at: Int64
    /// How long it took, ms.
    public var durationMillis: Int64
    /// The HTTP status the endpoint answered; nil when there was no answer.
    public var statusCode: Int?
    /// Why it failed without an answer (timeout, connection refused, certificate).
    public var error: String?
    /// The delivery's status after it.
    public var status: WebhookDeliveryStatus
    /// When a pending delivery is attempted next, Unix ms.
    public var nextAttemptAt: Int64?
    /// Set when the endpoint answered 410 Gone: it is disabled with this reason.
    public var disablesEndpoint: String?

    /// Why the delivery was given up, when this attempt failed it for good.
    public var failureReason: WebhookFailureReason? {
        guard status == .failed else { return nil }
        return disablesEndpoint == nil ? .expired : .gone
    }

    /// Makes an attempt.
    public init(
        deliveryID: Int64, at: Int64, durationMillis: Int64, statusCode: Int?, error: String?,
        status: WebhookDeliveryStatus, nextAttemptAt: Int64?, disablesEndpoint: String? = nil
    ) {
        self.deliveryID = deliveryID
        self.at = at
        self.durationMillis = durationMillis
        self.statusCode = statusCode
        self.error = error
        self.status = status
        self.nextAttemptAt = nextAttemptAt
        self.disablesEndpoint = disablesEndpoint
    }
}

/// A delivery as the admin API lists it: its message, status and every attempt.
public struct WebhookDeliveryRecord: Hashable, Sendable {
    /// The delivery's number.
    public var id: Int64
    /// The endpoint.
    public var endpointID: String
    /// The message id (`webhook-id`).
    public var messageID: String
    /// The event type.
    public var type: WebhookEventType
    /// The session it is about.
    public var sessionId: String
    /// Where it stands.
    public var status: WebhookDeliveryStatus
    /// Why a failed delivery was given up; nil unless failed.
    public var failureReason: WebhookFailureReason?
    /// When the event happened, Unix ms.
    public var createdAt: Int64
    /// When a pending delivery is attempted next, Unix ms.
    public var nextAttemptAt: Int64?
    /// The payload.
    public var body: String
    /// Every attempt, oldest first.
    public var attempts: [WebhookAttempt]

    /// Makes a record.
    public init(
        id: Int64, endpointID: String, messageID: String, type: WebhookEventType, sessionId: String,
        status: WebhookDeliveryStatus, failureReason: WebhookFailureReason? = nil, createdAt: Int64, nextAttemptAt: Int64?,
        body: String, attempts: [WebhookAttempt]
    ) {
        self.id = id
        self.endpointID = endpointID
        self.messageID = messageID
        self.type = type
        self.sessionId = sessionId
        self.status = status
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.body = body
        self.attempts = attempts
    }
}

/// One endpoint's queue depth, for metrics.
public struct WebhookBacklog: Hashable, Sendable {
    /// Deliveries pending.
    public var pending: Int
    /// When the oldest pending delivery's event happened, Unix ms; nil when none is pending.
    public var oldestPendingAt: Int64?

    /// Makes a backlog.
    public init(pending: Int, oldestPendingAt: Int64?) {
        self.pending = pending
        self.oldestPendingAt = oldestPendingAt
    }
}

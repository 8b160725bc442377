import CallGateCore
import CallGateProtocol
import Foundation

/// The admin API's webhook routes, `/v1/webhooks...`: one request, validated on the service
/// thread by `AdminRouter`, performed against the outbox off it (`perform`), since every route
/// reads or writes the store.
public enum WebhookAdminRequest: Sendable {
    /// `GET /v1/webhooks`
    case list
    /// `POST /v1/webhooks`
    case create(WebhookCreateBody)
    /// `GET /v1/webhooks/{id}`
    case get(id: String)
    /// `PATCH /v1/webhooks/{id}`
    case update(id: String, WebhookUpdateBody)
    /// `DELETE /v1/webhooks/{id}`
    case delete(id: String)
    /// `GET /v1/webhooks/{id}/deliveries?limit=N`
    case deliveries(id: String, limit: Int)
    /// `POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`
    case redeliver(id: String, deliveryID: Int64)

    /// Most endpoints a store holds: each event is written once per endpoint that wants it.
    static let maxEndpoints = 32
    /// How long a replaced secret keeps signing, so receivers can move to the new one.
    static let rotationOverlapMillis: Int64 = 86_400_000

    /// Whether it may change the endpoints (and so whether outcomes write events at all).
    var changesEndpoints: Bool {
        switch self {
        case .create, .update, .delete: true
        case .list, .get, .deliveries, .redeliver: false
        }
    }

    /// Whether deliveries may have become due: the dispatcher looks at once.
    var wakesDispatcher: Bool {
        changesEndpoints || { if case .redeliver = self { true } else { false } }()
    }

    /// The request for `endpoint` with `method`, the body and query validated (a URL inside the
    /// network only when `allowsPrivateNetworks`); the method is one the endpoint allows.
    static func parse(
        _ endpoint: AdminEndpoint, _ request: HTTPRequest, allowsPrivateNetworks: Bool
    ) throws(FieldError) -> WebhookAdminRequest? {
        switch (endpoint, request.method) {
        case (.webhooks, .get):
            return .list
        case (.webhooks, _):
            let body = try AdminRouter.decode(WebhookCreateBody.self, from: request.body)
            try body.validate(allowsPrivateNetworks: allowsPrivateNetworks)
            return .create(body)
        case (.webhook(let raw), let method):
            let id = try endpointID(raw)
            switch method {
            case .get: return .get(id: id)
            case .delete: return .delete(id: id)
            default:
                let body = try AdminRouter.decode(WebhookUpdateBody.self, from: request.body)
                try body.validate(allowsPrivateNetworks: allowsPrivateNetworks)
                return .update(id: id, body)
            }
        case (.webhookDeliveries(let raw), _):
            var limit = 20
            for item in request.queryItems where item.hasPrefix("limit=") {
                guard let value = Int(item.dropFirst(6)), (1...100).contains(value) else {
                    throw FieldError(field: "limit", rule: "expected a whole number from 1 to 100")
                }
                limit = value
            }
            return .deliveries(id: try endpointID(raw), limit: limit)
        case (.webhookRedeliver(let raw, let rawDelivery), _):
            guard let delivery = Int64(rawDelivery), delivery > 0, String(delivery) == rawDelivery else {
                throw FieldError(field: "deliveryId", rule: "expected a delivery id as the deliveries list shows it")
            }
            return .redeliver(id: try endpointID(raw), deliveryID: delivery)
        default:
            return nil
        }
    }

    /// An endpoint id from the path: `default`, or `ep_` and 16 of [0-9a-z].
    private static func endpointID(_ raw: Substring) throws(FieldError) -> String {
        let id = String(raw)
        let isGenerated = id.hasPrefix("ep_") && id.utf8.count == 19
            && id.utf8.dropFirst(3).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        guard isGenerated || id == WebhookConfiguration.defaultEndpointID else {
            throw FieldError(field: "id", rule: "expected an endpoint id as POST /v1/webhooks returned it")
        }
        return id
    }

    /// Performs the request on `outbox` at `now` (Unix ms). Off the service thread.
    func perform(on outbox: any WebhookOutbox, now: Int64) throws -> HTTPResponse {
        switch self {
        case .list:
            return .json(200, WebhookEndpointList(data: try outbox.webhookEndpoints().map { WebhookEndpointBody($0) }))
        case .create(let body):
            let endpoints = try outbox.webhookEndpoints()
            guard endpoints.count < Self.maxEndpoints else {
                return .error(400, .badRequest, "at most \(Self.maxEndpoints) webhook endpoints; remove one first")
            }
            let secret = body.secret ?? WebhookSignature.makeSecret()
            let endpoint = WebhookEndpoint(
                id: Self.makeID(), url: body.url, secrets: [WebhookSecret(value: secret)],
                eventTypes: body.eventTypes, createdAt: now)
            try outbox.putWebhookEndpoint(endpoint)
            var created = WebhookEndpointBody(endpoint)
            created.secret = secret
            return .json(201, created)
        case .get(let id):
            guard let endpoint = try outbox.webhookEndpoints().first(where: { $0.id == id }) else { return Self.notFound(id) }
            return .json(200, WebhookEndpointBody(endpoint))
        case .update(let id, let body):
            guard var endpoint = try outbox.webhookEndpoints().first(where: { $0.id == id }) else { return Self.notFound(id) }
            body.apply(to: &endpoint, now: now)
            try outbox.putWebhookEndpoint(endpoint)
            return .json(200, WebhookEndpointBody(endpoint))
        case .delete(let id):
            return try outbox.deleteWebhookEndpoint(id: id) ? .noContent : Self.notFound(id)
        case .deliveries(let id, let limit):
            guard try outbox.webhookEndpoints().contains(where: { $0.id == id }) else { return Self.notFound(id) }
            let records = try outbox.webhookDeliveries(endpoint: id, limit: limit)
            return .json(200, WebhookDeliveryList(data: records.map(WebhookDeliveryBody.init)))
        case .redeliver(let id, let deliveryID):
            guard try outbox.redeliverWebhook(id: deliveryID, endpoint: id, at: now) else {
                return .error(404, .notFound, "webhook endpoint '\(id)' has no delivery \(deliveryID)")
            }
            return .json(202, WebhookRedelivery(id: deliveryID, status: .pending))
        }
    }

    private static func notFound(_ id: String) -> HTTPResponse {
        .error(404, .notFound, "webhook endpoint '\(id)' not found")
    }

    /// `ep_` and 16 random characters of [0-9a-z].
    private static func makeID() -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return "ep_" + String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }
}

/// The body of `POST /v1/webhooks`: `{"url", "secret"?, "eventTypes"?}`. Unknown fields are ignored.
public struct WebhookCreateBody: Decodable, Sendable {
    var url: String
    var secret: String?
    var eventTypes: [WebhookEventType]?

    /// Throws unless the URL, the secret and the event types are valid.
    func validate(allowsPrivateNetworks: Bool) throws(FieldError) {
        try WebhookUpdateBody.check(url: url, secret: secret, allowsPrivateNetworks: allowsPrivateNetworks)
        try WebhookUpdateBody.check(eventTypes)
    }
}

/// The body of `PATCH /v1/webhooks/{id}`: any of `url`, `secret` (a new one: the previous ones
/// keep signing for a day), `eventTypes` (null: every type) and `enabled`. Absent members stay.
public struct WebhookUpdateBody: Decodable, Sendable {
    var url: String?
    var secret: String?
    /// nil: unchanged; `.some(nil)`: every type.
    var eventTypes: [WebhookEventType]??
    var enabled: Bool?

    private enum CodingKeys: String, CodingKey {
        case url, secret, eventTypes, enabled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        secret = try container.decodeIfPresent(String.self, forKey: .secret)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        if container.contains(.eventTypes) {
            eventTypes = .some(try container.decodeIfPresent([WebhookEventType].self, forKey: .eventTypes))
        }
    }

    /// Throws unless the members given are valid.
    func validate(allowsPrivateNetworks: Bool) throws(FieldError) {
        try Self.check(url: url, secret: secret, allowsPrivateNetworks: allowsPrivateNetworks)
        if let eventTypes {
            try Self.check(eventTypes)
        }
    }

    /// A URL an endpoint may have, and a secret it may sign with, when given.
    static func check(url: String?, secret: String?, allowsPrivateNetworks: Bool) throws(FieldError) {
        if let url, let problem = WebhookURL.problem(url, allowsPrivateNetworks: allowsPrivateNetworks) {
            throw FieldError(field: "url", rule: problem)
        }
        if let secret, WebhookSignature.key(of: secret) == nil {
            throw FieldError(field: "secret", rule: WebhookSignature.rule)
        }
    }

    /// Event types are listed once each; an empty list would want nothing.
    static func check(_ types: [WebhookEventType]?) throws(FieldError) {
        guard let types else { return }
        guard !types.isEmpty else { throw FieldError(field: "eventTypes", rule: "list at least one type, or omit it for all") }
        guard Set(types).count == types.count else { throw FieldError(field: "eventTypes", rule: "lists a type twice") }
    }

    /// Changes `endpoint` as asked at `now` (Unix ms).
    func apply(to endpoint: inout WebhookEndpoint, now: Int64) {
        if let url {
            endpoint.url = url
        }
        if let secret, !endpoint.secrets.contains(where: { $0.value == secret }) {
            let kept = endpoint.secrets.filter { $0.expiresAt.map { $0 > now } ?? true }.map { old in
                WebhookSecret(value: old.value, expiresAt: min(old.expiresAt ?? .max, now + WebhookAdminRequest.rotationOverlapMillis))
            }
            endpoint.secrets = [WebhookSecret(value: secret)] + kept
        }
        if let eventTypes {
            endpoint.eventTypes = eventTypes
        }
        if let enabled {
            endpoint.enabled = enabled
            endpoint.disabledReason = enabled ? nil : "disabled through the admin API"
        }
    }
}

/// An endpoint as the admin API shows it; its secrets only once, when it is created.
struct WebhookEndpointBody: Encodable {
    var id: String
    var url: String
    var eventTypes: [WebhookEventType]?
    var enabled: Bool
    var disabledReason: String?
    var createdAt: Int64
    /// The signing secret, in the answer to `POST /v1/webhooks` only.
    var secret: String?

    init(_ endpoint: WebhookEndpoint) {
        id = endpoint.id
        url = endpoint.url
        eventTypes = endpoint.eventTypes
        enabled = endpoint.enabled
        disabledReason = endpoint.disabledReason
        createdAt = endpoint.createdAt
    }
}

/// `{"data": [endpoint]}`.
struct WebhookEndpointList: Encodable {
    var data: [WebhookEndpointBody]
}

/// A delivery as the admin API lists it, the payload as it was sent.
struct WebhookDeliveryBody: Encodable {
    struct Attempt: Encodable {
        var at: Int64
        var durationMs: Int64
        var statusCode: Int?
        var error: String?
    }

    var id: Int64
    var webhookId: String
    var type: WebhookEventType
    var sessionId: String
    var status: WebhookDeliveryStatus
    var failureReason: WebhookFailureReason?
    var createdAt: Int64
    var nextAttemptAt: Int64?
    var attempts: [Attempt]
    var payload: JSONValue?

    init(_ record: WebhookDeliveryRecord) {
        id = record.id
        webhookId = record.messageID
        type = record.type
        sessionId = record.sessionId
        status = record.status
        failureReason = record.failureReason
        createdAt = record.createdAt
        nextAttemptAt = record.nextAttemptAt
        attempts = record.attempts.map {
            Attempt(at: $0.at, durationMs: $0.durationMillis, statusCode: $0.statusCode, error: $0.error)
        }
        payload = try? JSONDecoder().decode(JSONValue.self, from: Data(record.body.utf8))
    }
}

/// `{"data": [delivery]}`.
struct WebhookDeliveryList: Encodable {
    var data: [WebhookDeliveryBody]
}

/// The answer to a redelivery: `{"id", "status": "pending"}`.
struct WebhookRedelivery: Encodable {
    var id: Int64
    var status: WebhookDeliveryStatus
}

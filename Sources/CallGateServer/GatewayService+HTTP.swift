import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Plain HTTP on the gateway's port: the call log API through `CallLogRouter` (with CORS for
/// the allowed origins), the web demo through `WebAppRouter`, the admin API and health through
/// `AdminRouter`, metrics and readiness through `handleMonitoring`.
/// Service thread, but for the token checks (Swift concurrency's pool) and store reads
/// (`storeReads`) they start, which come back through the mailbox (`answer`).
extension GatewayService: HTTPHandler {
    func handle(_ exchange: HTTPExchange) {
        context.assertOnServiceThread()
        if let problem = exchange.framingProblem {
            write(.error(400, .badRequest, problem, headers: [("Connection", "close")]), to: exchange)
            return
        }
        if exchange.bodyTooLarge {
            write(.error(413, .payloadTooLarge, "request body is larger than \(AdminRouter.maxBodySize) bytes"), to: exchange)
            return
        }
        let request = HTTPRequest(
            method: HTTPMethod(exchange.method), path: exchange.path, queryItems: exchange.queryItems,
            headers: exchange.headers, body: exchange.body)
        if let endpoint = MonitoringEndpoint(rawValue: request.path) {
            handleMonitoring(endpoint, method: request.method, exchange: exchange)
            return
        }
        let box = ServiceThreadBox(exchange)
        if CallLogRouter.handles(request.path) {
            handleCallLog(request, for: box)
            return
        }
        let backlog = request.method == .get ? nil : storeBacklog()
        switch routes.route(request, refusingChangesFor: backlog) {
        case .respond(let response):
            // An admin change to the groups is answered once it is durable.
            output.emit(.http(box, response), after: submit([]))
        case .mintToken(let tokenRequest):
            let tokens = tokens
            Task {
                let response = await AdminRouter.tokenResponse(for: tokenRequest, using: tokens)
                self.answer(box, with: response)
            }
        case .attachRecording(let sessionId, let rid, let url, let startedAt):
            let store = store
            storeReads.async {
                let response: HTTPResponse
                do {
                    let match = try store.attachRecordingURL(url, sessionId: sessionId, rid: rid, startedAt: startedAt)
                    response = AdminRouter.recordingResponse(match, sessionId: sessionId, rid: rid, url: url)
                } catch {
                    response = .error(500, .internalError, "the recording URL could not be stored")
                }
                self.answer(box, with: response)
            }
        case .webhooks(let webhookRequest):
            handleWebhookAdmin(webhookRequest, for: box)
        case .callControl(let control):
            handleCallControl(control, for: box)
        case .drain(let begin):
            write(drainResponse(beginning: begin), to: exchange)
        }
    }

    /// Performs a webhook admin request on `storeReads`; after a change to the endpoints, tells
    /// the service whether any is enabled (so outcomes write events or not), has the dispatcher
    /// read them again and, in cluster mode, tells the other nodes to; after a redelivery, wakes
    /// the dispatcher.
    private func handleWebhookAdmin(_ request: WebhookAdminRequest, for exchange: ServiceThreadBox<HTTPExchange>) {
        let store = store
        let clock = clock
        let webhooks = webhooks
        storeReads.async {
            let outcome = Result { () throws -> (HTTPResponse, WebhookReach?) in
                let response = try request.perform(on: store, now: clock.nowMillis())
                return (response, request.changesEndpoints ? WebhookReach(try store.webhookEndpoints()) : nil)
            }
            let (response, reach) = (try? outcome.get())
                ?? (.error(500, .internalError, "the webhook endpoints could not be read or stored"), nil)
            self.context.post { [self] in
                reach?.apply(to: core)
                if request.changesEndpoints {
                    webhooks.endpointsChanged()
                    fabric.webhooksChanged()
                } else if request.wakesDispatcher {
                    webhooks.wake()
                }
                output.emit(.http(exchange, response))
            }
        }
    }

    /// Writes an HTTP response on the exchange.
    func write(_ response: HTTPResponse, to exchange: HTTPExchange) {
        var headers = response.headers
        if let contentType = response.contentType {
            headers.insert(("content-type", contentType), at: 0)
        }
        exchange.respond(status: response.status, headers: headers, body: response.body)
    }

    /// Any thread: sends `response` back to the service thread for `exchange`.
    func answer(_ exchange: ServiceThreadBox<HTTPExchange>, with response: HTTPResponse) {
        context.post { [self] in
            output.emit(.http(exchange, response))
        }
    }

    // MARK: Call log API

    /// The call log API: a CORS preflight (`OPTIONS` with `Origin`) is answered at once; for the
    /// rest the user's token is checked off the service thread, the store is read on
    /// `storeReads`, and the response comes back through the mailbox. Every answer carries the
    /// CORS headers of the request's `Origin` (see `OriginPolicy.crossOriginHeaders`).
    func handleCallLog(_ request: HTTPRequest, for exchange: ServiceThreadBox<HTTPExchange>) {
        let origin = request.headers["origin"]
        if request.method == .other("OPTIONS"), let origin {
            output.emit(.http(exchange, hub.admission.origins.preflight(from: origin)))
            return
        }
        let cors = hub.admission.origins.crossOriginHeaders(for: origin)
        switch CallLogRouter.route(request) {
        case .respond(let response):
            output.emit(.http(exchange, response.adding(cors)))
        case .list(let token, let request):
            read(for: token, exchange, adding: cors) { store, viewer, now in
                let page = try store.page(request.query(for: viewer))
                let unseen = try store.unseenMissedCalls(of: viewer, among: page.records.map(\.id))
                return .json(200, Self.listBody(
                    page, perPage: request.perPage, viewer: viewer, now: now, unseen: unseen,
                    missedCalls: try store.missedCalls(of: viewer)))
            }
        case .detail(let token, let sessionId):
            read(for: token, exchange, adding: cors) { store, viewer, now in
                let records = try store.calls(sessionId: sessionId, visibleTo: viewer)
                guard !records.isEmpty else {
                    return .error(404, .notFound, "no call with session id '\(sessionId)' that you were part of")
                }
                let unseen = try store.unseenMissedCalls(of: viewer, among: records.map(\.id))
                return .json(200, CallLogDetailBody(data: records.map { $0.log(for: viewer, at: now, unseen: unseen) }))
            }
        case .timeline(let token, let sessionId):
            read(for: token, exchange, adding: cors) { store, viewer, _ in
                let records = try store.calls(sessionId: sessionId, visibleTo: viewer)
                guard !records.isEmpty else {
                    return .error(404, .notFound, "no call with session id '\(sessionId)' that you were part of")
                }
                let deliveries = try store.webhookDeliveries(sessionId: sessionId, limit: CallTimelineBuilder.maxDeliveries)
                return .json(200, CallTimelineBody(data: records.map { CallTimelineBuilder.timeline(of: $0, deliveries: deliveries) }))
            }
        }
    }

    /// Checks `token`, runs `body` with the store and the token's uid on `storeReads`, and
    /// answers with what it returns (401 for a refused token, 500 if the store fails), with
    /// `headers` added.
    private func read(
        for token: String, _ exchange: ServiceThreadBox<HTTPExchange>, adding headers: [(String, String)],
        _ body: @escaping @Sendable (any CallLogStore, String, Int64) throws -> HTTPResponse
    ) {
        let tokens = tokens
        let store = store
        let clock = clock
        let queue = storeReads
        Task {
            switch await tokens.verify(token) {
            case .failure(let error):
                answer(exchange, with: CallLogRouter.unauthorized("token: \(error.message)").adding(headers))
            case .success(let user):
                queue.async {
                    let response: HTTPResponse
                    do {
                        response = try body(store, user.uid, clock.nowMillis() / 1000)
                    } catch {
                        response = .error(500, .internalError, "the call log could not be read")
                    }
                    self.answer(exchange, with: response.adding(headers))
                }
            }
        }
    }

    /// The body of a list page as `viewer` sees it, whose missed calls stand at `missedCalls`,
    /// `unseen` of them on the page.
    static func listBody(
        _ page: CallLogPage, perPage: Int, viewer: String, now: Int64, unseen: Set<Int64>, missedCalls: MissedCalls
    ) -> CallLogListBody {
        let pagination = CallLogPagination(
            total: page.total, perPage: perPage, currentPage: page.currentPage,
            totalPages: (page.total + perPage - 1) / perPage)
        return CallLogListBody(
            data: page.records.map { $0.log(for: viewer, at: now, unseen: unseen) },
            meta: CallLogListMeta(
                pagination: pagination,
                cursor: CallLogCursors(next: page.next?.encoded, previous: page.previous?.encoded),
                missedCalls: missedCalls))
    }

    // MARK: Monitoring

    /// `GET /metrics` and `GET /readyz`, without authentication: keep them off the public
    /// internet (the reverse proxy should not forward them).
    ///
    /// Both answer past the pipeline and without touching the store: they report on the gateway
    /// rather than show call state to a client, and they must answer at once while the store is
    /// stuck, which is when the pipeline holds output back and they matter most.
    /// Answers `endpoint`: GET only (405 otherwise). Readiness is what the writer last saw (its
    /// writes, retries, and its probe every 10 s while idle) and whether the store is behind,
    /// so a flood of probes costs no store work.
    func handleMonitoring(_ endpoint: MonitoringEndpoint, method: HTTPMethod, exchange: HTTPExchange) {
        guard method == .get else {
            write(.error(405, .methodNotAllowed, "method not allowed here; allowed: GET", headers: [("Allow", "GET")]), to: exchange)
            return
        }
        switch endpoint {
        case .metrics:
            metrics.store.backlog(queuedWrites: pipeline.writer.health.queuedWrites, heldOutput: pipeline.heldCount)
            write(HTTPResponse(status: 200, contentType: GatewayMetrics.contentType, body: metrics.exposition()), to: exchange)
        case .readiness:
            write(readiness(), to: exchange)
        }
    }

    private func readiness() -> HTTPResponse {
        if let draining = hub.drainRefusal {
            return .error(503, .notReady, draining)
        }
        let health = pipeline.writer.health
        if let since = health.failingSince {
            let seconds = (ContinuousClock.now - since).components.seconds
            return .error(
                503, .notReady,
                "the call log store does not accept writes (for \(seconds) s: \(health.lastError ?? "unknown error"))")
        }
        if let backlog = storeBacklog() {
            return .error(503, .notReady, backlog)
        }
        if let reason = fabric.unreadiness() {
            return .error(503, .notReady, reason)
        }
        return .json(200, ["status": "ready"])
    }
}

/// The unauthenticated monitoring paths: Prometheus metrics and readiness.
enum MonitoringEndpoint: String {
    /// `GET /metrics`: every metric in the Prometheus text format.
    case metrics = "/metrics"
    /// `GET /readyz`: 200 while the store accepts writes, else 503.
    case readiness = "/readyz"
}

import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Plain HTTP on the gateway's port: the call log API through `CallLogRouter`, the web demo
/// through `WebAppRouter`, the admin API and health through `AdminRouter`, metrics and
/// readiness through `handleMonitoring`.
/// Service thread, but for the token checks and store work they start, which come back
/// through the mailbox.
extension GatewayService: HTTPHandler {
    func handle(_ exchange: HTTPExchange) {
        context.assertOnServiceThread()
        beginOutput()
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
            handleCallLog(CallLogRouter.route(request), for: box)
            return
        }
        let backlog = request.method == .get ? nil : storeBacklog()
        switch webApp.route(request) ?? router.route(request, refusingChangesFor: backlog) {
        case .respond(let response):
            persistChanges()
            emit(.http(box, response))
        case .mintToken(let tokenRequest):
            let tokens = router.tokens
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
            beginOutput()
            emit(.http(exchange, response))
        }
    }
}

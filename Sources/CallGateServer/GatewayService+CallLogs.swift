import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// The call log API: the user's token is checked off the service thread, the store is read on
/// `storeReads`, and the response comes back through the mailbox.
extension GatewayService {
    func handleCallLog(_ route: CallLogRoute, for exchange: ServiceThreadBox<HTTPExchange>) {
        switch route {
        case .respond(let response):
            emit(.http(exchange, response))
        case .list(let token, let request):
            read(for: token, exchange) { store, viewer, now in
                let page = try store.page(request.query(for: viewer))
                return .json(200, Self.listBody(page, perPage: request.perPage, viewer: viewer, now: now))
            }
        case .detail(let token, let sessionId):
            read(for: token, exchange) { store, viewer, now in
                let records = try store.calls(sessionId: sessionId, visibleTo: viewer)
                guard !records.isEmpty else {
                    return .error(404, .notFound, "no call with session id '\(sessionId)' that you were part of")
                }
                return .json(200, CallLogDetailBody(data: records.map { $0.log(for: viewer, at: now) }))
            }
        }
    }

    /// Checks `token`, runs `body` with the store and the token's uid on `storeReads`, and
    /// answers with what it returns (401 for a refused token, 500 if the store fails).
    private func read(
        for token: String, _ exchange: ServiceThreadBox<HTTPExchange>,
        _ body: @escaping @Sendable (any CallLogStore, String, Int64) throws -> HTTPResponse
    ) {
        let tokens = tokens
        let store = store
        let clock = clock
        let queue = storeReads
        Task {
            switch await tokens.verify(token) {
            case .failure(let error):
                answer(exchange, with: CallLogRouter.unauthorized("token: \(error.message)"))
            case .success(let user):
                queue.async {
                    let response: HTTPResponse
                    do {
                        response = try body(store, user.uid, clock.nowMillis() / 1000)
                    } catch {
                        response = .error(500, .internalError, "the call log could not be read")
                    }
                    self.answer(exchange, with: response)
                }
            }
        }
    }

    /// The body of a list page as `viewer` sees it.
    static func listBody(_ page: CallLogPage, perPage: Int, viewer: String, now: Int64) -> CallLogListBody {
        let pagination = CallLogPagination(
            total: page.total, perPage: perPage, currentPage: page.currentPage,
            totalPages: (page.total + perPage - 1) / perPage)
        return CallLogListBody(
            data: page.records.map { $0.log(for: viewer, at: now) },
            meta: CallLogListMeta(
                pagination: pagination,
                cursor: CallLogCursors(next: page.next?.encoded, previous: page.previous?.encoded)))
    }
}

import LWS

/// Plain HTTP on the gateway's port: the admin API and health, through `AdminRouter`.
extension GatewayService: HTTPHandler {
    func handle(_ exchange: HTTPExchange) {
        if exchange.bodyTooLarge {
            respond(exchange, with: .error(413, .payloadTooLarge, "request body is larger than \(AdminRouter.maxBodySize) bytes"))
            return
        }
        let request = HTTPRequest(
            method: HTTPMethod(exchange.method), path: exchange.path, query: exchange.query,
            headers: exchange.headers, body: exchange.body)
        switch router.route(request) {
        case .respond(let response):
            respond(exchange, with: response)
        case .mintToken(let tokenRequest):
            let tokens = router.tokens
            let context = context
            let box = ServiceThreadBox(exchange)
            Task {
                let response = await AdminRouter.tokenResponse(for: tokenRequest, using: tokens)
                context.post { [self] in
                    respond(box.value, with: response)
                }
            }
        }
    }

    private func respond(_ exchange: HTTPExchange, with response: HTTPResponse) {
        var headers = response.headers
        if let contentType = response.contentType {
            headers.insert(("content-type", contentType), at: 0)
        }
        exchange.respond(status: response.status, headers: headers, body: response.body)
    }
}

/// The web softphone demo's routes: its embedded files (`GET /`, `/app.js`, `/callgate.js`,
/// `/style.css`) and `POST /dev/token`, which mints a connection token for any user name.
///
/// Each part exists only when turned on: the files with `ServerConfiguration.servesWebApp`,
/// the token route with `ServerConfiguration.mintsDevTokens`, which `callgate serve` sets only
/// when it generated its secret for the run (a development gateway, where anyone may be anyone).
/// A route that is off is not matched, so the request ends as the admin router's 404.
/// Service thread; a plain value.
struct WebAppRouter: Sendable {
    /// The path of the development token route.
    static let devTokenPath = "/dev/token"

    /// Whether the demo's files are served.
    let servesFiles: Bool
    /// Whether `POST /dev/token` exists.
    let mintsDevTokens: Bool
    /// The page's Content-Security-Policy: the gateway's own origin, plus the origin of
    /// `--webhook-url` when there is one, so the demo can read that receiver's event feed.
    let securityPolicy: String

    init(servesFiles: Bool, mintsDevTokens: Bool, webhookURL: String?) {
        self.servesFiles = servesFiles
        self.mintsDevTokens = mintsDevTokens
        let receiver = webhookURL.flatMap(WebhookURL.origin).map { " \($0)" } ?? ""
        securityPolicy = "default-src 'self'; connect-src 'self' ws: wss:\(receiver); frame-ancestors 'none'"
    }

    /// What to do with `request`, or nil when it is not a route of the demo.
    func route(_ request: HTTPRequest) -> AdminRoute? {
        if mintsDevTokens, request.path == Self.devTokenPath {
            guard request.method == .post else { return .respond(AdminRouter.methodNotAllowed([.post])) }
            do {
                return .mintToken(try AdminRouter.decode(TokenBody.self, from: request.body).validated())
            } catch {
                return .respond(.error(400, .badRequest, error.message))
            }
        }
        guard servesFiles, let asset = WebAsset.byPath[request.path] else { return nil }
        guard request.method == .get else { return .respond(AdminRouter.methodNotAllowed([.get])) }
        return .respond(HTTPResponse(
            status: 200, contentType: asset.contentType,
            headers: [
                ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
                ("Content-Security-Policy", securityPolicy),
            ],
            body: asset.bytes))
    }
}

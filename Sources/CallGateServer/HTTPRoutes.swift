/// The routes of the HTTP API but the call log's, in the order they are tried: the web app's
/// files and development tokens (when turned on), then the admin API. Service thread only.
struct HTTPRoutes {
    let webApp: WebAppRouter
    let admin: AdminRouter

    /// What `request` asks for; changes are refused with `backlog` while the store is behind.
    func route(_ request: HTTPRequest, refusingChangesFor backlog: String?) -> AdminRoute {
        webApp.route(request) ?? admin.route(request, refusingChangesFor: backlog)
    }
}

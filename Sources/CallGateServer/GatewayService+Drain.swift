import CallGateProtocol

/// The admin API's view of a drain: `POST /v1/admin/drain` begins one (or joins the one under
/// way), `GET` tells how it stands. A drained node stays up, not ready and without sockets,
/// running its calls until it is stopped. Service thread only.
extension GatewayService {
    /// How the drain stands, after beginning it when `beginning`: 202 for a POST, 200 for a GET.
    func drainResponse(beginning: Bool) -> HTTPResponse {
        context.assertOnServiceThread()
        if beginning {
            hub.beginDrain(over: configuration.drainWindow) {}
        }
        let drain = hub.drain
        let state = DrainState(
            draining: drain != nil, drained: drain?.isOver ?? false, sockets: hub.connections.count,
            windowSeconds: Int(configuration.drainWindow.components.seconds))
        return .json(beginning ? 202 : 200, state)
    }
}

/// The body of `/v1/admin/drain`'s answers.
struct DrainState: Encodable {
    /// Whether a drain began.
    let draining: Bool
    /// Whether it is over: no socket left, or the window and its grace passed.
    let drained: Bool
    /// The WebSockets open now.
    let sockets: Int
    /// The drain window, in seconds.
    let windowSeconds: Int
}

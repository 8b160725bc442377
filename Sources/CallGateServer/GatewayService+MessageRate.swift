import CallGateProtocol

/// The per-socket rate of WebSocket frames (`maxMessagesPerSecond`). Service thread only.
extension GatewayService {
    /// A full budget for a new socket; nil when there is no limit.
    func newMessageBudget() -> TokenBucket? {
        let rate = configuration.maxMessagesPerSecond
        guard rate > 0 else { return nil }
        return TokenBucket(ratePerSecond: rate, burst: rate, now: clock.monotonicMillis())
    }

    /// Spends one frame of the socket's budget. Over it, the socket is closed with 4029 after
    /// the output already queued to it, and every later frame of it is dropped.
    func withinMessageRate(_ session: ClientSession) -> Bool {
        if session.rateLimited { return false }
        guard session.messageBudget?.take(now: clock.monotonicMillis()) == false else { return true }
        session.rateLimited = true
        noteLimit(.rateLimited, metadata: ["address": "\(session.clientAddress)", "connection": "\(session.connectionID)"])
        emit(.close(session.connectionID, code: CloseCode.rateLimited, reason: "too many messages"))
        return false
    }
}

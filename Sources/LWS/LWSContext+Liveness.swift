import CLibWebSockets

/// Liveness of server connections, on the service thread.
extension LWSContext {
    /// Has the liveness monitor watch a newly opened server connection (when configured).
    func watchLiveness(of connection: WebSocketConnection) {
        guard let interval = configuration.livenessInterval, !stopping else { return }
        if liveness == nil {
            liveness = LivenessMonitor(context: self, interval: interval)
        }
        liveness?.track(connection)
    }

    /// Drops a dead or stuck connection at once, without a close frame (its peer does not read).
    ///
    /// The delegate hears `webSocketDidClose` now, so the layer above applies its disconnect
    /// rules without waiting for lws's TCP teardown (lws half-closes the socket and may wait up
    /// to `timeout_secs` for the peer's FIN before it reports the close); lws's later close
    /// callback for this socket is ignored.
    func drop(_ connection: WebSocketConnection) {
        guard let wsi = connection.wsi, !connection.closeReported else { return }
        connection.detach()
        connection.closeReported = true
        webSocketDelegate?.webSocketDidClose(connection, error: nil)
        forget(connection)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
    }
}

import CallGateCore
import CallGateProtocol
import LWS

/// The service's side of ``GatewayMetrics``: the measurements that need the service's own
/// state (socket queues, the output gate, the call log changes). Service thread only.
extension GatewayService {
    /// Runs `initiateCall` and, when it rang a device, measures how long the gateway took from
    /// taking up the request to handing the ring frames to the sockets: a marker goes through
    /// the output gate behind those frames, so the store commit they wait for is included.
    func initiateCall(_ params: InitiateCallParams, requestID: String, from session: ClientSession, on connection: WebSocketConnection) {
        let received = ContinuousClock.now
        let outcome = core.initiateCall(params, from: session.connectionID)
        send(outcome, replyTo: requestID, on: connection)
        if outcome.deliveries.contains(where: { $0.push.event == .onIncomingCallReceived }) {
            emit(.ringHandedOver(since: received))
        }
    }

    /// Queues `frame` on `socket` and counts it as sent; when this frame overflows the
    /// socket's queue (which closes it with 4008), counts it and the frames the close
    /// discards as dropped.
    func queue(_ frame: OutboundFrame, on socket: WebSocketConnection) {
        let wasClosing = socket.isClosing
        let waiting = socket.queuedFrames
        if socket.send(frame) {
            metrics.frameSent()
        } else if !wasClosing && socket.isClosing {
            metrics.framesDropped(waiting + 1)
        }
    }

    /// Counts the rung calls among `changes` that just reached their final status.
    func countFinishedCalls(_ changes: [CallLogRecord]) {
        finishedCalls.observe(changes) { metrics.callFinished($0) }
    }

    /// Counts a closed socket under its close code.
    func countClose(of connection: WebSocketConnection) {
        metrics.socketClosed(code: CloseCodeLabel.label(
            local: connection.localCloseCode, peer: connection.peerCloseCode, peerSentClose: connection.peerSentClose))
    }
}

import CallGateCore
import CallGateProtocol
import LWS

/// Socket lifecycle: open, message, close. Service thread only.
extension GatewayService: WebSocketDelegate {
    func webSocketDidOpen(_ connection: WebSocketConnection) {
        let id = ConnectionID(connection.id)
        let deadline = clock.nowMillis() + configuration.authTimeout.wholeMilliseconds
        connection.attachment = ClientSession(
            connectionID: id, authDeadline: deadline, clientAddress: connection.clientAddress, messageBudget: newMessageBudget())
        admission.counts.opened(connection.clientAddress)
        sockets[id] = connection
        if authQueue.nextDeadline == nil {
            authTimer.schedule(afterMicroseconds: configuration.authTimeout.wholeMilliseconds * 1000)
        }
        authQueue.append(id, deadline: deadline)
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        guard let session = connection.attachment as? ClientSession, withinMessageRate(session) else { return }
        if binary {
            fail(connection, requestID: nil, code: .badRequest, message: "binary frames are not supported: send JSON text")
            return
        }
        let frame: RequestFrame
        do {
            frame = try RequestFrame.decode(message)
        } catch {
            fail(connection, requestID: error.id, code: .badRequest, message: error.message)
            return
        }
        handle(frame, from: connection, session: session)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, error: String?) {
        guard let session = connection.attachment as? ClientSession else { return }
        connection.attachment = nil
        sockets[session.connectionID] = nil
        admission.counts.closed(session.clientAddress)
        if let user = session.user {
            logger.debug("disconnected", metadata: ["uid": "\(user.uid)", "connection": "\(session.connectionID)"])
            deliver(core.disconnect(session.connectionID))
        }
    }

    /// Closes, with 4001, every socket whose `connect` deadline passed; re-arms for the next one.
    func closeUnauthenticated() {
        let now = clock.nowMillis()
        for id in authQueue.popExpired(now: now) {
            guard let connection = sockets[id], let session = connection.attachment as? ClientSession,
                session.user == nil
            else { continue }
            logger.debug("closing socket that did not connect in time", metadata: ["connection": "\(id)"])
            connection.close(code: CloseCode.unauthorized, reason: "connect timeout")
        }
        if let next = authQueue.nextDeadline {
            authTimer.schedule(afterMicroseconds: max(0, next - now) * 1000)
        }
    }
}

import CallGateCore
import CallGateProtocol
import LWS

/// Socket lifecycle: open, message, close. Service thread only.
extension GatewayService: WebSocketDelegate {
    func webSocketDidOpen(_ connection: WebSocketConnection) {
        context.assertOnServiceThread()
        metrics.socketOpened()
        let id = ConnectionID(connection.id)
        let deadline = clock.monotonicMillis() + configuration.authTimeout.wholeMilliseconds
        let clientAddress = configuration.trustedProxies.clientAddress(
            peer: connection.peerAddress, forwardedFor: connection.forwardedFor)
        let session = ClientSession(
            connectionID: id, authDeadline: deadline, clientAddress: clientAddress, messageBudget: newMessageBudget())
        session.countedAddress = admission.socketOpened(peer: connection.peerAddress, clientAddress: clientAddress)
        connection.attachment = session
        logger.debug("socket opened", metadata: ["connection": "\(id)", "client": "\(clientAddress)"])
        sockets[id] = connection
        if authQueue.nextDeadline == nil {
            authTimer.schedule(afterMicroseconds: configuration.authTimeout.wholeMilliseconds * 1000)
        }
        authQueue.append(id, deadline: deadline)
    }

    func webSocketDidReceiveFrame(_ connection: WebSocketConnection) -> Bool {
        context.assertOnServiceThread()
        guard let session = connection.attachment as? ClientSession else { return false }
        return withinMessageRate(session)
    }

    func webSocket(_ connection: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        context.assertOnServiceThread()
        metrics.frameReceived()
        guard let session = connection.attachment as? ClientSession else { return }
        beginOutput()
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
        context.assertOnServiceThread()
        countClose(of: connection)
        guard let session = connection.attachment as? ClientSession else { return }
        connection.attachment = nil
        sockets[session.connectionID] = nil
        forgetExpiry(of: session)
        if let address = session.countedAddress {
            admission.socketClosed(countedUnder: address)
        }
        if let user = session.user {
            logger.info(
                "disconnected",
                metadata: ["uid": "\(user.uid)", "connection": "\(session.connectionID)", "client": "\(session.clientAddress)"])
            beginOutput()
            deliver(core.disconnect(session.connectionID))
        }
    }

    /// Closes, with 4001, every socket whose `connect` deadline passed; re-arms for the next one.
    func closeUnauthenticated() {
        let now = clock.monotonicMillis()
        for id in authQueue.popExpired(now: now) {
            guard let connection = sockets[id], let session = connection.attachment as? ClientSession,
                session.user == nil
            else { continue }
            logger.debug("closing socket that did not connect in time", metadata: ["connection": "\(id)"])
            metrics.authFailed(.connectTimeout)
            connection.close(code: CloseCode.unauthorized, reason: "connect timeout")
        }
        if let next = authQueue.nextDeadline {
            authTimer.schedule(afterMicroseconds: max(0, next - now) * 1000)
        }
    }
}

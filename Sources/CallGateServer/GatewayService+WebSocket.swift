import CallGateCluster
import CallGateCore
import CallGateProtocol
import LWS

/// Socket lifecycle (open, frame, message, close), the per-socket limits (the `connect`
/// deadline, the message rate) and the dispatch of request frames to the Core.
/// Service thread only.
extension GatewayService: WebSocketDelegate {
    func webSocketDidOpen(_ socket: WebSocketConnection) {
        context.assertOnServiceThread()
        metrics.socketOpened()
        let deadline = clock.monotonicMillis() + configuration.authTimeout.wholeMilliseconds
        let clientAddress = configuration.trustedProxies.clientAddress(
            peer: socket.peerAddress, forwardedFor: socket.forwardedFor)
        let connection = ClientConnection(
            socket: socket, authDeadline: deadline, clientAddress: clientAddress, messageBudget: newMessageBudget())
        connection.countedAddress = admission.socketOpened(peer: socket.peerAddress, clientAddress: clientAddress)
        logger.debug("socket opened", metadata: ["connection": "\(connection.id)", "client": "\(clientAddress)"])
        connections[connection.id] = connection
        if authQueue.nextDeadline == nil {
            authTimer.schedule(afterMicroseconds: configuration.authTimeout.wholeMilliseconds * 1000)
        }
        authQueue.append(connection.id, deadline: deadline)
    }

    func webSocketDidReceiveFrame(_ socket: WebSocketConnection) -> Bool {
        context.assertOnServiceThread()
        guard let connection = connections[ConnectionID(socket.id)] else { return false }
        return withinMessageRate(connection)
    }

    func webSocket(_ socket: WebSocketConnection, didReceive message: [UInt8], binary: Bool) {
        context.assertOnServiceThread()
        metrics.frameReceived()
        guard let connection = connections[ConnectionID(socket.id)] else { return }
        if binary {
            refuse(frameFrom: connection.id, requestID: nil, message: "binary frames are not supported: send JSON text")
            return
        }
        let frame: RequestFrame
        do {
            frame = try RequestFrame.decode(message)
        } catch {
            refuse(frameFrom: connection.id, requestID: error.id, message: error.message)
            return
        }
        handle(frame, as: message, from: connection)
    }

    func webSocketDidClose(_ socket: WebSocketConnection, error: String?) {
        context.assertOnServiceThread()
        metrics.socketClosed(code: CloseCodeLabel.label(
            local: socket.localCloseCode, peer: socket.peerCloseCode, peerSentClose: socket.peerSentClose))
        guard let connection = connections.removeValue(forKey: ConnectionID(socket.id)) else { return }
        forgetExpiry(of: connection)
        if let address = connection.countedAddress {
            admission.socketClosed(countedUnder: address)
        }
        depart(connection)
        if let uid = connection.uid {
            logger.info(
                "disconnected",
                metadata: ["uid": "\(uid)", "connection": "\(connection.id)", "client": "\(connection.clientAddress)"])
            detach(uid)
            send(core.disconnect(connection.id, runningTimers: mayRunCalls()))
            userLeft(uid)
            lookForOtherDevices(of: uid)
        }
    }

    /// One request frame (`bytes` as the socket sent it), by op and by where its connection is
    /// in the handshake.
    private func handle(_ frame: RequestFrame, as bytes: [UInt8], from connection: ClientConnection) {
        let id = connection.id
        let request = address(frame.id, on: id, concerning: frame.request.sessionId)
        if connection.isConnected, frame.request.writesCallLog, let backlog = storeBacklog() {
            fail(request, code: .storeUnavailable, message: backlog)
            return
        }
        if connection.isConnected, frame.request.isInitiate, let failure = storeFailure() {
            fail(request, code: .storeUnavailable, message: failure)
            return
        }
        let isConnect = if case .connect = frame.request { true } else { false }
        switch (connection.life.received(isConnect: isConnect), frame.request) {
        case (.refuse(let code, let message), _):
            fail(request, code: code, message: message)
        case (.verify, .connect(let params)):
            verify(params, answering: request)
        case (_, let op) where (op.isForwardable || op.isInitiate) && !mayRunCalls():
            fail(request, code: .clusterUnavailable, message: "this node is cut off from the cluster: \(clusterUnreadiness() ?? "it is checking its calls"); try again shortly")
        case (_, .joinSession(let params)):
            joinSession(params, as: bytes, from: connection, answering: request)
        case (_, let op):
            guard let sessionId = op.sessionId else {
                dispatch(op, answering: request)
                return
            }
            route(sessionId, bytes: bytes, from: connection, answering: request) { [self] in
                dispatch(op, answering: request)
            }
        }
    }

    /// Runs an op of a connected device: of this node, or of another that forwarded it here
    /// because this node owns its call (`request.forward`).
    func dispatch(_ op: ClientRequest, answering request: ReplyAddress) {
        let id = request.connection
        switch op {
        case .connect:
            fail(request, code: .badRequest, message: "this socket already sent connect")
        case .refreshToken(let params):
            refreshToken(params, answering: request)
        case .ping:
            succeed(request, with: PingResult(serverTime: clock.nowMillis()))
        case .initiateCall(let params):
            initiateCall(params, answering: request)
        case .acceptCall(let params):
            claimingUser(of: request) { [self] _, _ in
                send(core.acceptCall(sessionId: params.sessionId, from: id), answering: request)
            }
        case .rejectCall(let params):
            send(core.rejectCall(params, from: id), answering: request)
        case .endCall(let params):
            send(core.endCall(sessionId: params.sessionId, from: id), answering: request)
        case .generateToken(let params):
            generateToken(params, answering: request)
        case .joinSession(let params):
            joinSession(params, answering: request)
        case .leaveSession(let params):
            send(core.leaveSession(sessionId: params.sessionId, from: id).mapReply(SessionResult.init), answering: request)
        case .setMuted(let params):
            send(core.setMuted(params, from: id).mapReply(SessionResult.init), answering: request)
        case .startRecording(let params):
            send(core.setRecording(sessionId: params.sessionId, on: true, from: id).mapReply(SessionResult.init), answering: request)
        case .stopRecording(let params):
            send(core.setRecording(sessionId: params.sessionId, on: false, from: id).mapReply(SessionResult.init), answering: request)
        case .switchToVideo(let params):
            send(core.switchToVideo(sessionId: params.sessionId, from: id).mapReply(SessionResult.init), answering: request)
        }
    }

    /// Runs `initiateCall` and, when it rang a device of this gateway, measures how long the gateway took from
    /// taking up the request to handing the ring frames to the sockets: a marker goes through
    /// the pipeline behind those frames, so the store commit they wait for is included.
    /// In cluster mode the caller is claimed as busy first, and the call is recorded as this
    /// node's before any push about it goes out.
    private func initiateCall(_ params: InitiateCallParams, answering request: ReplyAddress) {
        let received = ContinuousClock.now
        let ringing = cluster == nil ? [] : core.user(of: request.connection).map { callees(of: params, from: $0.uid) } ?? []
        claimingUser(of: request, ringing: ringing, starting: true) { [self] elsewhere, start in
            initiateCall(params, answering: request, elsewhere: elsewhere, start: start, receivedAt: received)
        }
    }

    private func initiateCall(
        _ params: InitiateCallParams, answering request: ReplyAddress, elsewhere: CalleesElsewhere,
        start: CallStarts.Start?, receivedAt received: ContinuousClock.Instant
    ) {
        let caller = core.user(of: request.connection)?.uid
        let outcome = core.initiateCall(params, from: request.connection, elsewhere: elsewhere)
        switch (cluster, outcome.reply) {
        case (let cluster?, .success(let call)):
            cluster.owners.record(call.sessionId) { [logger] failure in
                if let failure {
                    logger.warning("call owner not recorded", metadata: ["sessionId": "\(call.sessionId)", "error": "\(failure)"])
                }
            }
        case (let cluster?, .failure):
            if let start, let caller {
                cluster.starts.refund(start, by: caller)
            }
        case (nil, _):
            break
        }
        let sent = send(outcome, answering: request)
        if sent.contains(.onIncomingCallReceived) {
            emit(.ringHandedOver(since: received))
        }
    }

    /// Closes, with 4001, every socket whose `connect` deadline passed; re-arms for the next one.
    func closeUnauthenticated() {
        let now = clock.monotonicMillis()
        for id in authQueue.popExpired(now: now) {
            guard let connection = connections[id], !connection.isConnected else { continue }
            logger.debug("closing socket that did not connect in time", metadata: ["connection": "\(id)"])
            metrics.authFailed(.connectTimeout)
            connection.socket.close(code: CloseCode.unauthorized, reason: "connect timeout")
        }
        if let next = authQueue.nextDeadline {
            authTimer.schedule(afterMicroseconds: max(0, next - now) * 1000)
        }
    }

    /// A full message budget for a new socket; nil when there is no limit.
    private func newMessageBudget() -> TokenBucket? {
        let rate = configuration.maxMessagesPerSecond
        guard rate > 0 else { return nil }
        return TokenBucket(ratePerSecond: rate, burst: rate, now: clock.monotonicMillis())
    }

    /// Spends one frame of the connection's budget (`maxMessagesPerSecond`). Over it, the socket
    /// is closed with 4029 after the output already queued to it, and every later frame of it
    /// is dropped.
    private func withinMessageRate(_ connection: ClientConnection) -> Bool {
        switch connection.life.spendMessage(now: clock.monotonicMillis()) {
        case .take:
            return true
        case .drop:
            return false
        case .closeOverRate:
            noteLimit(.rateLimited, metadata: ["address": "\(connection.clientAddress)", "connection": "\(connection.id)"])
            emit(.close(connection.id, code: CloseCode.rateLimited, reason: "too many messages"))
            return false
        }
    }
}

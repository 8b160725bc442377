import CallGateCore
import CallGateProtocol
import LWS

/// What the sockets' messages ask for: a request frame's dispatch to the Core by op and by
/// where its connection is in the handshake, and what a connection's close ends. The sockets
/// themselves are the hub's (`ConnectionHub`). Service thread only.
extension GatewayService: ConnectionHubDelegate {
    func received(_ message: [UInt8], binary: Bool, from connection: ClientConnection) {
        context.assertOnServiceThread()
        if binary {
            output.refuse(frameFrom: connection.id, requestID: nil, message: "binary frames are not supported: send JSON text")
            return
        }
        let frame: RequestFrame
        do {
            frame = try RequestFrame.decode(message)
        } catch {
            output.refuse(frameFrom: connection.id, requestID: error.id, message: error.message)
            return
        }
        handle(frame, as: message, from: connection)
    }

    func closed(_ connection: ClientConnection) {
        context.assertOnServiceThread()
        fabric.departed(connection)
        if let uid = connection.uid {
            logger.info(
                "disconnected",
                metadata: ["uid": "\(uid)", "connection": "\(connection.id)", "client": "\(connection.clientAddress)"])
            send(core.disconnect(connection.id, runningTimers: fabric.mayRunCalls()))
            fabric.left(uid)
        }
    }

    func closeAfterOutput(_ id: ConnectionID, code: UInt16, reason: String) {
        output.emit(.close(id, code: code, reason: reason))
    }

    func refusesSockets() -> String? {
        context.assertOnServiceThread()
        return fabric.unreadiness()
    }

    /// One request frame (`bytes` as the socket sent it), by op and by where its connection is
    /// in the handshake.
    private func handle(_ frame: RequestFrame, as bytes: [UInt8], from connection: ClientConnection) {
        let id = connection.id
        let request = ReplyAddress(
            requestID: frame.id, connection: id, sessionId: frame.request.sessionId,
            timing: OpTiming(op: frame.request.op, since: .now))
        if connection.isConnected, frame.request.writesCallLog, let backlog = storeBacklog() {
            output.fail(request, code: .storeUnavailable, message: backlog)
            return
        }
        if connection.isConnected, frame.request.isInitiate, let failure = storeFailure() {
            output.fail(request, code: .storeUnavailable, message: failure)
            return
        }
        let isConnect = if case .connect = frame.request { true } else { false }
        switch (connection.life.received(isConnect: isConnect), frame.request) {
        case (.refuse(let code, let message), _):
            output.fail(request, code: code, message: message)
        case (.verify, .connect(let params)):
            verify(params, answering: request)
        case (_, let op) where (op.isForwardable || op.isInitiate) && !fabric.mayRunCalls():
            output.fail(request, code: .clusterUnavailable, message: "this node is cut off from the cluster: \(fabric.unreadiness() ?? "it is checking its calls"); try again shortly")
        case (_, .joinSession(let params)):
            joinSession(params, as: bytes, from: connection, answering: request)
        case (_, let op):
            guard let sessionId = op.sessionId else {
                dispatch(op, answering: request)
                return
            }
            fabric.route(sessionId, claiming: false, bytes: bytes, from: connection, answering: request) { [self] in
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
            output.fail(request, code: .badRequest, message: "this socket already sent connect")
        case .refreshToken(let params):
            refreshToken(params, answering: request)
        case .ping:
            output.succeed(request, with: PingResult(serverTime: clock.nowMillis()))
        case .initiateCall(let params):
            initiateCall(params, answering: request)
        case .acceptCall(let params):
            let accept: () -> Void = { [self] in
                send(core.acceptCall(sessionId: params.sessionId, from: id), answering: request)
            }
            if let uid = core.user(of: id)?.uid, core.waitingCall(params.sessionId, rings: uid) {
                fabric.claimingWaitingUser(of: request, then: accept)
            } else {
                fabric.claimingUser(of: request, then: accept)
            }
        case .confirmRinging(let params):
            send(core.confirmRinging(sessionId: params.sessionId, from: id), answering: request)
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
        case .markCallsSeen(let params):
            markCallsSeen(params, answering: request)
        case .muteParticipant(let params):
            send(core.muteParticipant(params, from: id).mapReply(SessionResult.init), answering: request)
        case .removeParticipant(let params):
            send(core.removeParticipant(params, from: id).mapReply(SessionResult.init), answering: request)
        case .sendSessionEvent(let params):
            send(core.sendSessionEvent(params, from: id), answering: request)
        case .holdCall(let params):
            send(core.setHeld(sessionId: params.sessionId, on: true, from: id).mapReply(SessionResult.init), answering: request)
        case .resumeCall(let params):
            let resume: () -> Void = { [self] in
                send(core.setHeld(sessionId: params.sessionId, on: false, from: id).mapReply(SessionResult.init), answering: request)
            }
            // Taking back a call held for a waiting one engages the user again: claimed first.
            if let uid = core.user(of: id)?.uid, core.holdsAway(uid, params.sessionId) {
                fabric.claimingUser(of: request, then: resume)
            } else {
                resume()
            }
        case .inviteToCall(let params):
            // Only valid uids are looked up elsewhere; the Core refuses the rest.
            let invitees = Array(params.receiverIds.prefix(GatewayCore.maxInviteesPerRequest).filter(FieldRules.isValidID))
            fabric.inviting(invitees, of: request) { [self] elsewhere in
                send(core.inviteToCall(params, from: id, elsewhere: elsewhere), answering: request)
            }
        }
    }

    /// Runs `initiateCall` once the fabric claimed the caller (`Fabric.claimingUser`) and, when
    /// it rang a device of this gateway, measures how long the gateway took from taking up the
    /// request to handing the ring frames to the sockets: a marker goes through the pipeline
    /// behind those frames, so the store commit they wait for is included.
    private func initiateCall(_ params: InitiateCallParams, answering request: ReplyAddress) {
        let received = ContinuousClock.now
        let ringing = core.user(of: request.connection).map { fabric.callees(of: params, from: $0.uid, anyGroup: false) } ?? []
        fabric.startingCall(of: request, ringing: ringing) { [self] elsewhere in
            core.initiateCall(params, from: request.connection, elsewhere: elsewhere)
        } then: { [self] outcome in
            if send(outcome, answering: request).contains(.onIncomingCallReceived) {
                output.emit(.ringHandedOver(since: received))
            }
        }
    }
}

import CallGateProtocol
import Foundation

/// The socket's life: opening it and sending `connect`, reading its frames, its end.
extension CallGateConnection {
    /// Opens a socket and sends `connect` on it, with `recover` when an earlier socket saw
    /// pushes. With `fetchToken`, asks for a new token first when the one held expires within a
    /// minute (or has expired: after a 4003).
    func openAndConnect() async throws -> ConnectResult {
        if socket != nil {
            throw CallGateConnectionError.connectFailed("a socket is open already")
        }
        let opened: any TransportSocket
        do {
            opened = try await transport.open(configuration.url, subprotocol: WireEndpoint.subprotocol)
        } catch {
            throw CallGateConnectionError.connectFailed(String(describing: error))
        }
        guard !closedByApp, socket == nil else {
            await opened.close(code: 1000, reason: "bye")
            throw CallGateConnectionError.disconnected(code: nil)
        }
        attach(opened)
        if let fetchToken = configuration.fetchToken, tokenExpiresSoon {
            if let fetched = try? await fetchToken() {
                token = fetched
                tokenExpiresAt = nil
            }
        }
        let outcome = try await send(.connect(ConnectParams(token: token, recover: position)))
        do {
            return try outcome.decodeResult(ConnectResult.self)
        } catch let refused as ErrorBody {
            if refused.code == .authError || refused.code == .tooManyDevices {
                refusal = refused.code == .authError ? CloseCode.unauthorized : CloseCode.tooManyDevices
            }
            await opened.close(code: 1000, reason: "connect refused")
            throw refused
        }
    }

    /// Whether the token held expires within a minute (by the gateway's clock).
    private var tokenExpiresSoon: Bool {
        guard let tokenExpiresAt else { return false }
        return tokenExpiresAt * 1000 - serverNowMillis < 60_000
    }

    /// Makes `opened` the socket: starts reading its events and writing its frames, in order.
    private func attach(_ opened: any TransportSocket) {
        socketNumber += 1
        let number = socketNumber
        socket = opened
        let (frames, feed) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        outgoing = feed
        Task {
            for await text in frames {
                try? await opened.send(text)
            }
        }
        Task { [weak self] in
            for await event in opened.events {
                guard let self else { return }
                await self.take(event, from: number)
            }
        }
    }

    private func take(_ event: TransportEvent, from number: Int) {
        guard number == socketNumber else { return }
        switch event {
        case .text(let text):
            received(Data(text.utf8))
        case .closed(let code, let reason):
            socketEnded(code: code, reason: reason)
        }
    }

    /// One frame from the gateway: a reply for its waiting request (a connect result is taken
    /// up here, before the frames after it), or a push for the app, once.
    private func received(_ data: Data) {
        guard let frame = try? ServerFrame.decode(data) else { return }
        switch frame {
        case .reply(let id, let outcome):
            guard let id, let waiter = pending.removeValue(forKey: id) else { return }
            if let connecting, connecting.id == id {
                self.connecting = nil
                if let result = try? outcome.decodeResult(ConnectResult.self) {
                    connected(result, recovering: connecting.recover)
                }
            }
            waiter.resume(returning: outcome)
        case .push(let event, let seq, let raw):
            guard isNew(seq), let push = try? Push(event: event, frame: raw) else { return }
            switch push {
            case .callEnded(let sessionId), .removedFromCall(let sessionId, _):
                joined.removeValue(forKey: sessionId)
            case .missedCallsChanged(let count):
                guard noteMissedCalls(count) else { return }
            case .incomingCallCanceled(let call, _):
                confirmed.remove(call.sessionId)
            default:
                break
            }
            emit(.push(push))
            if case .incomingCallReceived(let call, _) = push, configuration.confirmsRinging, call.callStatus == .initiated {
                confirmed.insert(call.sessionId)
                confirm(call.sessionId)
            }
        }
    }

    /// Takes up a successful connect: the push sequence, the clock, the token's expiry, the
    /// missed calls; tells the app, then recovers the sessions when it recovered.
    private func connected(_ result: ConnectResult, recovering recover: RecoverParams?) {
        attempt = 0
        current = result
        clockOffsetMillis = result.serverTime - Self.localMillis()
        tokenExpiresAt = result.tokenExpiresAt
        if let unseen = result.unseenMissedCalls, let revision = result.missedCallsRevision {
            noteMissedCalls(MissedCalls(unseen: unseen, revision: revision))
        }
        follow(result, recovering: recover)
        scheduleRefresh()
        emit(.open(result))
        if recover != nil {
            confirmAgain(result.activeCalls)
            recoverSessions(result)
        }
    }

    /// Tells the caller this device shows the ring of `sessionId`; a ring that stopped
    /// meanwhile is refused, and that refusal is of no interest.
    private func confirm(_ sessionId: String) {
        Task { _ = try? await self.confirmRinging(sessionId) }
    }

    /// A new socket is a new device to the gateway: the rings confirmed before that still ring
    /// are confirmed again, so the callers' ring progress keeps counting this device.
    private func confirmAgain(_ activeCalls: [Call]) {
        let ringing = Set(activeCalls.filter { $0.callStatus == .initiated }.map(\.sessionId))
        confirmed.formIntersection(ringing)
        for sessionId in confirmed.sorted() {
            confirm(sessionId)
        }
    }

    /// The socket is gone: fails what waits on it, tells the app, and reconnects unless the app
    /// closed it or the close says another try cannot help.
    private func socketEnded(code: UInt16?, reason: String) {
        socket = nil
        outgoing?.finish()
        outgoing = nil
        current = nil
        connecting = nil
        refreshTask?.cancel()
        let waiting = pending.values
        pending = [:]
        for waiter in waiting {
            waiter.resume(throwing: CallGateConnectionError.disconnected(code: code))
        }
        let final = refusal != nil || code.map(Self.finalCloseCodes.contains) == true
        refusal = nil
        let willReconnect = configuration.reconnects && !closedByApp && !final
        emit(.closed(code: code, reason: reason, willReconnect: willReconnect))
        if willReconnect {
            scheduleReconnect()
        }
    }
}

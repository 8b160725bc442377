import CallGateProtocol
import Foundation

/// The socket's life: opening it and sending `connect`, reading its frames, its end.
extension CallGateConnection {
    /// Opens a socket and sends `connect` on it, with `recover` when an earlier socket saw
    /// pushes. With `fetchToken`, asks for a new token first (before the socket opens: the
    /// gateway gives a socket 10 s to connect) when the one held expires within a minute or has
    /// expired. A connect that does not succeed ends its socket; with `retrying`, the next
    /// attempt is scheduled unless the gateway refused this device for good.
    func openAndConnect(retrying: Bool) async throws -> ConnectResult {
        if socket != nil {
            throw CallGateConnectionError.connectFailed("a socket is open already")
        }
        if let fetchToken = configuration.fetchToken, tokenExpiresSoon,
            let fetched = try? await within(configuration.requestTimeout, op: "fetchToken", fetchToken)
        {
            token = fetched
            tokenExpiresAt = nil
        }
        let opened: any TransportSocket
        do {
            opened = try await transport.open(configuration.url, subprotocol: WireEndpoint.subprotocol)
        } catch {
            throw CallGateConnectionError.connectFailed(String(describing: error))
        }
        guard !closedByApp, socket == nil else {
            Task { await opened.close(code: 1000, reason: "bye") }
            throw CallGateConnectionError.disconnected(code: nil)
        }
        let number = attach(opened)
        do {
            return try await send(.connect(ConnectParams(token: token, recover: position.point))).decodeResult(ConnectResult.self)
        } catch {
            guard socketNumber == number else { throw error }
            var reconnecting = retrying && configuration.reconnects && !closedByApp
            if let refused = error as? ErrorBody {
                switch refused.code {
                case .authError, .tooManyDevices:
                    reconnecting = false
                case .rateLimited, .storeUnavailable, .internal, .clusterUnavailable:
                    break
                default:
                    // The gateway refused what this client sent: the next connect starts afresh.
                    position = PushPosition()
                }
            }
            detach(code: nil, reason: "connect failed: \(error)", reconnecting: reconnecting)
            Task { await opened.close(code: 1000, reason: "connect failed") }
            throw error
        }
    }

    /// Whether the token held expires within a minute (by the gateway's clock).
    private var tokenExpiresSoon: Bool {
        guard let tokenExpiresAt else { return false }
        return Self.millis(ofSeconds: tokenExpiresAt).subtractingClamped(serverNowMillis) < 60_000
    }

    /// Makes `opened` the socket: starts reading its events and writing its frames, in order.
    /// Answers its number.
    private func attach(_ opened: any TransportSocket) -> Int {
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
        return number
    }

    private func take(_ event: TransportEvent, from number: Int) {
        guard number == socketNumber else { return }
        switch event {
        case .text(let text):
            received(Data(text.utf8))
        case .closed(let code, let reason):
            let final = code.map(CloseCode.final.contains) == true
            detach(code: code, reason: reason, reconnecting: configuration.reconnects && !closedByApp && !final)
        }
    }

    /// Ends the socket for this connection at once: its later frames are ignored, what waits on
    /// it fails, the app is told, and a reconnect is scheduled when `reconnecting` (when a
    /// draining node's 1012 says, if its reason is a reconnect hint). Closing the transport is
    /// the caller's (the gateway may never answer a close frame).
    func detach(code: UInt16?, reason: String, reconnecting: Bool) {
        guard socket != nil else { return }
        let hint = code == CloseCode.serviceRestart ? ReconnectHint(reason: reason) : nil
        socketNumber += 1
        socket = nil
        outgoing?.finish()
        outgoing = nil
        current = nil
        connecting = nil
        refreshTask?.cancel()
        refreshTask = nil
        let waiting = pending.values
        pending = [:]
        for waiter in waiting {
            waiter.resume(throwing: CallGateConnectionError.disconnected(code: code))
        }
        emit(.closed(code: code, reason: reason, willReconnect: reconnecting))
        if reconnecting {
            scheduleReconnect(hint: hint)
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
            guard position.see(seq), let push = try? Push(event: event, frame: raw) else { return }
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
        connectedAt = .now
        current = result
        clockOffsetMillis = result.serverTime.subtractingClamped(Self.localMillis())
        tokenExpiresAt = result.tokenExpiresAt
        if let unseen = result.unseenMissedCalls, let revision = result.missedCallsRevision {
            noteMissedCalls(MissedCalls(unseen: unseen, revision: revision))
        }
        position.follow(result, recovering: recover)
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

    /// `work`, or `.timeout(op)` when it takes longer than `limit` (the work is cancelled).
    func within<Value: Sendable>(
        _ limit: Duration, op: String, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw CallGateConnectionError.timeout(op: op)
            }
            return value
        }
    }
}

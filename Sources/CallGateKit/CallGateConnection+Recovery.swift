import CallGateProtocol
import Foundation

/// Coming back after a drop: reconnects, rejoining sessions, the token; and the missed-call count.
extension CallGateConnection {
    /// Keeps `count` when it is newer than the one held; says whether it was (counts from
    /// different gateway nodes may cross).
    @discardableResult
    func noteMissedCalls(_ count: MissedCalls) -> Bool {
        if let missedCalls, missedCalls.revision >= count.revision { return false }
        missedCalls = count
        return true
    }

    /// After a connect that sent `recover`: joins again the sessions the gateway did not resume
    /// whose call is live, forgets the others, then tells the app (`.recovered`).
    func recoverSessions(_ result: ConnectResult) {
        let recovery = result.recovery ?? Recovery(epoch: result.epoch, recovered: false, missed: 0)
        let resumed = Set(result.resumedSessions.map(\.sessionId))
        let live = Set(result.activeCalls.map(\.sessionId))
        for sessionId in resumed where joined[sessionId] == nil {
            joined[sessionId] = .some(nil)
        }
        var lost: [String] = []
        var rejoining: [(sessionId: String, idleTimeout: Int?)] = []
        for (sessionId, idleTimeout) in joined.sorted(by: { $0.key < $1.key }) where !resumed.contains(sessionId) {
            joined.removeValue(forKey: sessionId)
            if live.contains(sessionId) {
                rejoining.append((sessionId, idleTimeout))
            } else {
                lost.append(sessionId)
            }
        }
        let report = RecoveryReport(
            recovered: recovery.recovered, missed: recovery.missed, resumedSessions: result.resumedSessions, rejoinedSessions: [],
            lostSessions: lost)
        guard !rejoining.isEmpty else {
            emit(.recovered(report))
            return
        }
        Task { await rejoin(rejoining, reporting: report) }
    }

    /// Joins `sessions` again with fresh call tokens, then tells the app. When the socket drops
    /// meanwhile, the sessions not joined yet are kept for the next connect to try (not after
    /// `close()`).
    private func rejoin(_ sessions: [(sessionId: String, idleTimeout: Int?)], reporting report: RecoveryReport) async {
        var report = report
        for (index, session) in sessions.enumerated() {
            do {
                let token = try await generateToken(sessionId: session.sessionId)
                report.rejoinedSessions.append(try await joinSession(callToken: token.callToken, idleTimeout: session.idleTimeout))
            } catch CallGateConnectionError.disconnected {
                guard !closedByApp else { return }
                for left in sessions[index...] {
                    joined[left.sessionId] = left.idleTimeout
                }
                return
            } catch {
                report.lostSessions.append(session.sessionId)
            }
        }
        emit(.recovered(report))
    }

    /// Schedules the next reconnect: `firstRetryDelay` doubling to `maxRetryDelay`, with jitter.
    /// The doubling starts over only after a socket that lived 30 s, so a gateway that takes
    /// `connect` and then closes is not asked again every half second. After a draining node's
    /// 1012, `hint` says when: a delay drawn at random within it, and the doubling starts over.
    func scheduleReconnect(hint: ReconnectHint? = nil) {
        if hint != nil {
            attempt = 0
        } else if let connectedAt, ContinuousClock.now - connectedAt >= .seconds(30) {
            attempt = 0
        }
        connectedAt = nil
        attempt += 1
        let delay: Duration
        if let hint {
            var generator = SystemRandomNumberGenerator()
            delay = .milliseconds(hint.delayMilliseconds(using: &generator))
        } else {
            let doubled = configuration.firstRetryDelay * (1 << min(attempt - 1, 20))
            delay = min(doubled, configuration.maxRetryDelay) * Double.random(in: 0.75...1.25)
        }
        emit(.reconnecting(attempt: attempt, delay: delay))
        retryTask = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.retry()
        }
    }

    /// One reconnect. A socket that would not open is tried again later; one that opened and
    /// did not connect was ended by `openAndConnect`, which scheduled the next try if any.
    private func retry() async {
        guard !closedByApp, socket == nil else { return }
        do {
            _ = try await openAndConnect(retrying: true)
        } catch CallGateConnectionError.connectFailed {
            if !closedByApp, socket == nil {
                scheduleReconnect()
            }
        } catch {
            return
        }
    }

    /// With `fetchToken`, arms the refresh of the token ahead of its expiry: a minute before,
    /// or halfway through the time left when that is under two minutes. The refresh belongs to
    /// the open socket: it does nothing once that socket is gone.
    func scheduleRefresh(retry: Bool = false) {
        refreshTask?.cancel()
        refreshTask = nil
        guard let fetchToken = configuration.fetchToken, let expiresAt = tokenExpiresAt, current != nil else { return }
        let remaining = Self.millis(ofSeconds: expiresAt).subtractingClamped(serverNowMillis)
        guard remaining > 0 else { return }
        var wait = remaining >= 120_000 ? remaining - 60_000 : remaining / 2
        if retry {
            guard remaining > 5_000 else { return }
            wait = max(5_000, remaining / 2)
        }
        let number = socketNumber
        refreshTask = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(wait))
            guard !Task.isCancelled else { return }
            await self?.refresh(with: fetchToken, on: number)
        }
    }

    /// Refreshes the token with one from `fetchToken`, if socket `number` is still the open
    /// one (a success arms the next refresh). A failure, or a token that expires no later than
    /// the one held, is told to the app and tried again halfway through the time then left, at
    /// least 5 s later.
    private func refresh(with fetchToken: @escaping @Sendable () async throws -> String, on number: Int) async {
        guard number == socketNumber, current != nil, !closedByApp else { return }
        let before = tokenExpiresAt
        do {
            let fresh = try await within(configuration.requestTimeout, op: "fetchToken", fetchToken)
            guard number == socketNumber, current != nil else { return }
            let result = try await refreshToken(fresh)
            if let before, result.tokenExpiresAt <= before, number == socketNumber, !closedByApp {
                emit(.refreshFailed("the fetched token expires no later than the one held"))
                scheduleRefresh(retry: true)
            }
        } catch {
            guard number == socketNumber, current != nil, !closedByApp else { return }
            emit(.refreshFailed(String(describing: error)))
            scheduleRefresh(retry: true)
        }
    }
}

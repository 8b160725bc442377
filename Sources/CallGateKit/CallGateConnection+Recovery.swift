import CallGateProtocol
import Foundation

/// Coming back after a drop: the push sequence, reconnects, rejoining sessions, the token.
extension CallGateConnection {
    /// Takes up the push sequence from a connect result: from its `seq`, or, when missed pushes
    /// follow it, from the last push seen until they are all in.
    func follow(_ result: ConnectResult, recovering recover: RecoverParams?) {
        if let recover, let recovery = result.recovery, recovery.recovered, recovery.missed > 0 {
            position = RecoverParams(epoch: result.epoch, seq: recover.seq, connectionId: result.connectionId)
            replay = (recovery.missed, result.seq)
        } else {
            position = RecoverParams(epoch: result.epoch, seq: result.seq, connectionId: result.connectionId)
            replay = nil
        }
    }

    /// Whether the push numbered `seq` was not seen yet; moves the position past it. After the
    /// last missed push the position moves to the connect result's `seq`: the pushes in between
    /// were not for this device (its previous socket had the replies).
    func isNew(_ seq: UInt64?) -> Bool {
        guard let seq, var position else { return true }
        guard seq > position.seq else { return false }
        position.seq = seq
        if let replay {
            if replay.left <= 1 {
                position.seq = max(seq, replay.resumeAt)
                self.replay = nil
            } else {
                self.replay = (replay.left - 1, replay.resumeAt)
            }
        }
        self.position = position
        return true
    }

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
    /// meanwhile, the sessions not joined yet are kept for the next connect to try.
    private func rejoin(_ sessions: [(sessionId: String, idleTimeout: Int?)], reporting report: RecoveryReport) async {
        var report = report
        for (index, session) in sessions.enumerated() {
            do {
                let token = try await generateToken(sessionId: session.sessionId)
                report.rejoinedSessions.append(try await joinSession(callToken: token.callToken, idleTimeout: session.idleTimeout))
            } catch is ErrorBody {
                report.lostSessions.append(session.sessionId)
            } catch {
                for left in sessions[index...] {
                    joined[left.sessionId] = left.idleTimeout
                }
                return
            }
        }
        emit(.recovered(report))
    }

    /// Schedules the next reconnect: `firstRetryDelay` doubling to `maxRetryDelay`, with jitter.
    func scheduleReconnect() {
        attempt += 1
        let doubled = configuration.firstRetryDelay * (1 << min(attempt - 1, 20))
        let delay = min(doubled, configuration.maxRetryDelay) * Double.random(in: 0.75...1.25)
        emit(.reconnecting(attempt: attempt, delay: delay))
        retryTask = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.retry()
        }
    }

    /// One reconnect. A socket that would not open is tried again later; a socket that opened
    /// and then failed is tried again (or not) when its close comes.
    private func retry() async {
        guard !closedByApp, socket == nil else { return }
        do {
            _ = try await openAndConnect()
        } catch CallGateConnectionError.connectFailed {
            if !closedByApp, socket == nil {
                scheduleReconnect()
            }
        } catch {
            return
        }
    }

    /// With `fetchToken`, arms the refresh of the token ahead of its expiry: a minute before,
    /// or halfway through the time left when that is under two minutes.
    func scheduleRefresh() {
        refreshTask?.cancel()
        guard let fetchToken = configuration.fetchToken, let expiresAt = tokenExpiresAt, current != nil else { return }
        let remaining = expiresAt * 1000 - serverNowMillis
        guard remaining > 0 else { return }
        let wait = remaining >= 120_000 ? remaining - 60_000 : remaining / 2
        refreshTask = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(wait))
            guard !Task.isCancelled else { return }
            await self?.refresh(with: fetchToken)
        }
    }

    /// Refreshes the token with one from `fetchToken` (a success arms the next refresh); a
    /// failure is told to the app and tried again halfway through the time then left, at
    /// least a second later, while the socket and the token last.
    private func refresh(with fetchToken: @escaping @Sendable () async throws -> String) async {
        do {
            _ = try await refreshToken(try await fetchToken())
        } catch {
            emit(.refreshFailed(String(describing: error)))
            guard current != nil, let expiresAt = tokenExpiresAt else { return }
            let remaining = expiresAt * 1000 - serverNowMillis
            guard remaining > 1000 else { return }
            refreshTask = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(max(1000, remaining / 2)))
                guard !Task.isCancelled else { return }
                await self?.refresh(with: fetchToken)
            }
        }
    }
}

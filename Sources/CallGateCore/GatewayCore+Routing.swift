import CallGateProtocol

extension GatewayCore {
    /// The connections of every user in `uids`, without `excluded`. Each connection belongs to
    /// one user, so distinct uids give distinct connections.
    func devices(of uids: [String], excluding excluded: ConnectionID? = nil) -> [ConnectionID] {
        var result: [ConnectionID] = []
        for uid in uids {
            for connection in directory.connections(of: uid) where connection != excluded {
                result.append(connection)
            }
        }
        return result
    }

    /// The best description of a user: their newest connection's, else the one they joined
    /// their current call with, else just their uid.
    func profile(of uid: String) -> User {
        if let user = directory.profile(of: uid) {
            return user
        }
        if let sessionId = engagedCall[uid], let user = sessions[sessionId]?.profiles[uid] {
            return user
        }
        return User(uid: uid, name: uid)
    }

    /// Whether `uid` takes part in an answered call, which makes them busy for new calls.
    func isInOngoingCall(_ uid: String) -> Bool {
        guard let sessionId = engagedCall[uid] else { return false }
        return sessions[sessionId]?.call.callStatus == .ongoing
    }

    /// The live calls `uid` rings for or takes part in, oldest first.
    func activeCalls(of uid: String) -> [Call] {
        var ids = ringingCalls[uid] ?? []
        if let engaged = engagedCall[uid], !ids.contains(engaged) {
            ids.append(engaged)
        }
        return ids.compactMap { sessions[$0] }
            .sorted { $0.ordinal < $1.ordinal }
            .map(\.call)
    }

    /// The current time in Unix milliseconds, for dates.
    var nowMillis: Int64 {
        clock.nowMillis()
    }

    /// The current monotonic time in milliseconds: every timer's deadline is on this clock.
    var monotonicNow: Int64 {
        clock.monotonicMillis()
    }

    /// The current time in Unix seconds, as call timestamps carry it.
    var nowSeconds: Int64 {
        clock.nowMillis() / 1000
    }
}

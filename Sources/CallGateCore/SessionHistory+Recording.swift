import CallGateProtocol

extension SessionHistory {
    /// A user joined: their first join adds them, a later one starts a new stay.
    mutating func recordJoin(_ user: User, at now: Int64) {
        if let index = participants.firstIndex(where: { $0.uid == user.uid }) {
            participants[index].leftAt = nil
        } else {
            participants.append(ParticipantHistory(
                uid: user.uid, name: user.name, avatar: user.avatar, joinedAt: now, totalSeconds: 0))
        }
    }

    /// A user left: their stay that started at `stayStartedAt` is over.
    mutating func recordLeave(_ uid: String, stayStartedAt start: Int64, at now: Int64) {
        guard let index = participants.firstIndex(where: { $0.uid == uid }) else { return }
        participants[index].leftAt = now
        participants[index].totalSeconds += now - start
    }

    /// Counts a stay still in progress up to `now`, for a history read while the session lives.
    mutating func addRunningStay(_ uid: String, stayStartedAt start: Int64, at now: Int64) {
        guard let index = participants.firstIndex(where: { $0.uid == uid }) else { return }
        participants[index].totalSeconds += now - start
    }

    /// A recording started; its id is `<sessionId>-r<n>`.
    mutating func startRecording(at now: Int64) {
        recordings.append(RecordingHistory(rid: "\(sessionId)-r\(recordings.count + 1)", startedAt: now))
    }

    /// The running recording stopped.
    mutating func stopRecording(at now: Int64) {
        guard let index = recordings.indices.last, recordings[index].endedAt == nil else { return }
        recordings[index].endedAt = now
        recordings[index].duration = now - recordings[index].startedAt
    }
}

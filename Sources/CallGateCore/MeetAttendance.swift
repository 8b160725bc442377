/// How many standalone (`meet`) sessions each user is in right now, for the cap on them
/// (`CoreConfiguration.maxMeetSessionsPerUser`). The meet rooms report every member they add
/// and remove, so the count is exact without walking the rooms. Service thread only.
final class MeetAttendance {
    private var sessions: [String: Int] = [:]

    /// The number of meet sessions `uid` is a member of.
    func count(of uid: String) -> Int {
        sessions[uid] ?? 0
    }

    func joined(_ uid: String) {
        sessions[uid, default: 0] += 1
    }

    func left(_ uid: String) {
        let left = (sessions[uid] ?? 1) - 1
        sessions[uid] = left > 0 ? left : nil
    }
}

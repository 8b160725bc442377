import CallGateCore
import CallGateProtocol
import TestSupport

/// Random records, re-saves and queries over a small world of users, groups and sessions, so
/// filters, visibility and paging positions collide often.
public struct RandomCalls {
    /// The users; the last one is never part of any call.
    public static let users = ["u0", "u1", "u2", "u3", "u4", "u5", "u6", "nobody"]
    /// The groups.
    public static let groups = ["g0", "g1", "g2"]

    /// The source of randomness.
    public var rng: SplitMix64

    public init(rng: SplitMix64) {
        self.rng = rng
    }

    /// A random element of `items`.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &rng)]
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &rng) < p
    }

    /// A random participant, every field varied.
    public mutating func participant(_ uid: String) -> CallLogParticipantRecord {
        CallLogParticipantRecord(
            uid: uid, name: "name-\(uid)", avatar: chance(0.5) ? "https://a/\(uid).png" : nil,
            state: pick(CallLogParticipantState.allCases), joinedAt: chance(0.6) ? Int64.random(in: 1...99, using: &rng) : nil,
            leftAt: chance(0.4) ? 200 : nil, closedSeconds: Int64.random(in: 0...50, using: &rng),
            stayStartedAt: chance(0.3) ? 150 : nil, heldSeconds: chance(0.2) ? Int64.random(in: 0...40, using: &rng) : nil,
            holdStartedAt: chance(0.1) ? 160 : nil, heldAway: chance(0.1) ? true : nil)
    }

    /// A random call with this id.
    public mutating func record(_ id: Int64) -> CallLogRecord {
        let callers = Array(Self.users.dropLast())
        let initiator = pick(callers)
        let category: CallCategory = chance(0.2) ? .meet : .call
        var receiver: CallReceiver?
        var others = callers.filter { $0 != initiator }.shuffled(using: &rng)
        if category == .call {
            if chance(0.4) {
                receiver = .group(Group(guid: pick(Self.groups), name: "group", membersCount: 4))
                others = Array(others.prefix(Int.random(in: 1...4, using: &rng)))
            } else {
                receiver = .user(TestCalls.user(others[0]))
                others = [others[0]]
            }
        } else {
            others = Array(others.prefix(Int.random(in: 0...3, using: &rng)))
        }
        let session = "s\(Int.random(in: 0..<40, using: &rng))"
        let rids = (0..<Int.random(in: 0...2, using: &rng)).map { "\(session)-r\($0 + 1)" }
        return CallLogRecord(
            id: id, sessionId: session, callCategory: category, callType: pick(CallType.allCases),
            callStatus: pick(CallStatus.allCases), initiator: TestCalls.user(initiator), receiver: receiver,
            initiatedAt: 1_000 + id, startedAt: chance(0.5) ? 1_001 + id : nil, endedAt: chance(0.5) ? 1_100 + id : nil,
            ringDeadline: chance(0.3) ? 5_000 + id : nil,
            participants: [participant(initiator)] + others.map { participant($0) },
            recordings: TestCalls.recordings(chance(0.3) ? rids : []),
            metadata: chance(0.2) ? ["topic": .string("t\(id)"), "n": .number(Double(id))] : nil,
            steps: chance(0.7) ? steps(of: [initiator] + others, from: (1_000 + id) * 1000) : CallSteps())
    }

    /// Random steps about `uids` from `start` on (Unix ms): every kind and optional field, names
    /// with characters JSON escapes, and now and then more than a call keeps.
    public mutating func steps(of uids: [String], from start: Int64) -> CallSteps {
        var steps = CallSteps()
        let count = chance(0.05) ? CallSteps.maxSteps + Int.random(in: 1...30, using: &rng) : Int.random(in: 1...8, using: &rng)
        for index in 0..<count {
            steps.add(CallStep(
                at: start + Int64(index) * Int64.random(in: 0...900, using: &rng), step: pick(CallStepKind.allCases),
                uid: chance(0.9) ? pick(uids) : nil, device: chance(0.5) ? "\(Int.random(in: 1...999_999, using: &rng))" : nil,
                devices: chance(0.3) ? Int.random(in: 0...5, using: &rng) : nil, wakeUp: chance(0.3) ? chance(0.5) : nil,
                status: chance(0.2) ? pick(CallStatus.allCases) : nil, reason: chance(0.2) ? "why \"not\"\n\u{e9}" : nil,
                rid: chance(0.1) ? "r\(index)" : nil))
        }
        return steps
    }

    /// `record` changed as a later transition might: new status, a participant changed, one
    /// more or one less, a recording more.
    public mutating func resave(_ record: CallLogRecord) -> CallLogRecord {
        var copy = record
        copy.callStatus = pick(CallStatus.allCases)
        copy.callType = pick(CallType.allCases)
        if chance(0.5) {
            let index = Int.random(in: 0..<copy.participants.count, using: &rng)
            copy.participants[index] = participant(copy.participants[index].uid)
        }
        let absent = Self.users.dropLast().filter { !copy.involves($0) }
        if chance(0.4), !absent.isEmpty {
            copy.participants.append(participant(pick(absent)))
        } else if chance(0.2), copy.participants.count > 1 {
            copy.participants.removeLast()
        }
        if chance(0.3) {
            copy.recordings += TestCalls.recordings(["\(copy.sessionId)-r\(copy.recordings.count + 1)"])
        }
        if chance(0.5) {
            for step in steps(of: copy.participants.map(\.uid), from: (copy.endedAt ?? copy.initiatedAt) * 1000).steps {
                copy.steps.add(step)
            }
        }
        return copy
    }

    /// A batch of writes as the gateway's writer hands a store: 1 to `maxCalls` saves, each a new
    /// call (ids leave gaps, like a gateway that skipped some) or a re-save of one in `saved`,
    /// and now and then a group put or deleted. `saved` and `nextID` follow what it wrote.
    public mutating func batch(saved: inout [CallLogRecord], nextID: inout Int64, maxCalls: Int) -> [StoreWrite] {
        var batch: [StoreWrite] = []
        for _ in 0..<Int.random(in: 1...maxCalls, using: &rng) {
            if !saved.isEmpty, chance(0.35) {
                let index = Int.random(in: 0..<saved.count, using: &rng)
                saved[index] = resave(saved[index])
                batch.append(.call(saved[index]))
            } else {
                nextID += Int64.random(in: 1...3, using: &rng)
                saved.append(record(nextID))
                batch.append(.call(saved[saved.count - 1]))
            }
        }
        if chance(0.2) {
            let members = Self.users.filter { _ in chance(0.5) }
            batch.append(.putGroup(GroupRecord(guid: pick(Self.groups), name: "n", members: members)))
        }
        if chance(0.1) {
            batch.append(.deleteGroup(pick(Self.groups)))
        }
        return batch
    }

    /// A random filter, mostly with one or two members set.
    public mutating func filter() -> CallLogFilter {
        CallLogFilter(
            category: chance(0.2) ? pick(CallCategory.allCases) : nil,
            callType: chance(0.2) ? pick(CallType.allCases) : nil,
            status: chance(0.15) ? pick(CallStatus.allCases) : nil,
            direction: chance(0.25) ? pick(CallDirection.allCases) : nil,
            hasRecording: chance(0.15),
            withUser: chance(0.2) ? pick(Self.users) : nil,
            group: chance(0.15) ? pick(Self.groups) : nil)
    }

    /// A random query; cursor ids fall on, between and beyond the `maxID` ids.
    public mutating func query(maxID: Int64) -> CallLogQuery {
        let position: CallLogQuery.Position
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: position = .page(Int.random(in: -1...12, using: &rng))
        case 1: position = .cursor(.olderThan(Int64.random(in: -1...(maxID + 2), using: &rng)))
        default: position = .cursor(.newerThan(Int64.random(in: -1...(maxID + 2), using: &rng)))
        }
        return CallLogQuery(
            viewer: pick(Self.users), filter: filter(), perPage: Int.random(in: 0...25, using: &rng), position: position)
    }
}

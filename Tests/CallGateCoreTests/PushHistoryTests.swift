import TestSupport
import CallGateCore
import Testing

/// `InMemoryPushHistory`: numbering per user, what a position recovers, and every bound.
@Suite struct PushHistoryTests {
    let clock = ManualClock(millis: 1_700_000_000_000)

    func history(_ limits: PushHistoryLimits = PushHistoryLimits()) -> InMemoryPushHistory {
        InMemoryPushHistory(limits: limits, clock: clock, origin: "test")
    }

    func frame(_ text: String) -> HistoryFrame {
        HistoryFrame(head: Array(text.utf8), event: .onCallEnded, sessionId: "s")
    }

    /// A history with a device of each of `users` attached.
    func history(_ limits: PushHistoryLimits = PushHistoryLimits(), attaching users: [String]) -> InMemoryPushHistory {
        let history = history(limits)
        for uid in users { history.attach(uid) }
        return history
    }

    @Test func eachUserHasTheirOwnSequenceFromOne() {
        let history = history(attaching: ["alice", "bob"])
        let shared = frame("ring")
        #expect(history.record(shared, for: "alice", excluding: nil) == 1)
        #expect(history.record(shared, for: "bob", excluding: nil) == 1)
        #expect(history.record(frame("cancel"), for: "alice", excluding: ConnectionID(7)) == 2)
        #expect(history.position(of: "alice") == HistoryPosition(epoch: "test-1", seq: 2))
        #expect(history.position(of: "bob") == HistoryPosition(epoch: "test-2", seq: 1))
        let missed = history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 0))
        #expect(missed?.map(\.seq) == [1, 2])
        #expect(missed?.map { String(decoding: $0.frame.head, as: UTF8.self) } == ["ring", "cancel"])
        #expect(missed?.map(\.excluding) == [nil, ConnectionID(7)])
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 2))?.isEmpty == true)
    }

    @Test func aUserNoDeviceAttachedWithinTheWindowHasNothingKept() {
        let history = history(PushHistoryLimits(windowMillis: 1_000))
        #expect(history.record(frame("ring"), for: "nobody", excluding: nil) == nil)
        #expect(history.userCount == 0)
        #expect(history.bytes == 0)
        history.attach("alice")
        history.detach("alice")
        clock.advance(millis: 999)
        #expect(history.record(frame("ring"), for: "alice", excluding: nil) == 1)
        clock.advance(millis: 1_000)
        #expect(history.record(frame("ring"), for: "alice", excluding: nil) == nil)
        #expect(history.bytes == 0)
    }

    @Test func anotherEpochOrASeqAheadDoesNotRecover() {
        let history = history(attaching: ["alice"])
        _ = history.record(frame("a"), for: "alice", excluding: nil)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "other-1", seq: 0)) == nil)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 2)) == nil)
        #expect(history.entries(for: "nobody", after: HistoryPosition(epoch: "test-1", seq: 0)) == nil)
    }

    @Test func pushesLeaveWithTheWindowAndTheSequenceThenBeginsAnew() {
        let history = history(PushHistoryLimits(windowMillis: 1_000), attaching: ["alice"])
        history.detach("alice")
        _ = history.record(frame("a"), for: "alice", excluding: nil)
        clock.advance(millis: 600)
        _ = history.record(frame("b"), for: "alice", excluding: nil)
        clock.advance(millis: 500)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 0)) == nil)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 1))?.map(\.seq) == [2])
        clock.advance(millis: 600)
        #expect(history.userCount == 0)
        #expect(history.bytes == 0)
        #expect(history.position(of: "alice") == HistoryPosition(epoch: "test-2", seq: 0))
    }

    @Test func aConnectedUsersSequenceOutlivesTheWindowAndTheirLastDeviceExtendsIt() {
        let history = history(PushHistoryLimits(windowMillis: 1_000))
        history.attach("alice")
        _ = history.record(frame("a"), for: "alice", excluding: nil)
        clock.advance(millis: 5_000)
        let idle = history.position(of: "alice")
        #expect(idle == HistoryPosition(epoch: "test-1", seq: 1))
        #expect(history.entries(for: "alice", after: idle)?.isEmpty == true)
        history.detach("alice")
        clock.advance(millis: 900)
        #expect(history.entries(for: "alice", after: idle)?.isEmpty == true)
        clock.advance(millis: 200)
        #expect(history.entries(for: "alice", after: idle) == nil)
        #expect(history.userCount == 0)
    }

    @Test func thePerUserCapDropsTheOldestAndRecoveryBeforeThemFails() {
        let history = history(PushHistoryLimits(maxEntriesPerUser: 3), attaching: ["alice"])
        for _ in 0..<5 { _ = history.record(frame("x"), for: "alice", excluding: nil) }
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 1)) == nil)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 2))?.map(\.seq) == [3, 4, 5])
    }

    /// A missed-call count replaces the count before it: its frame goes at once, a recovery
    /// passes over it and gives the newest count with every other push, and the replaced one
    /// still takes its number, so positions before and after it recover as before.
    @Test func aNewerCountReplacesTheCountBeforeIt() {
        let history = history(attaching: ["alice"])
        func count(_ unseen: Int) -> HistoryFrame {
            HistoryFrame(head: Array("count \(unseen)".utf8), event: .onMissedCallsChanged, sessionId: "")
        }
        #expect(history.record(count(1), for: "alice", excluding: nil) == 1)
        let oneCount = history.bytes
        #expect(history.record(frame("ring"), for: "alice", excluding: nil) == 2)
        #expect(history.record(count(2), for: "alice", excluding: nil) == 3)
        #expect(history.record(frame("cancel"), for: "alice", excluding: nil) == 4)
        #expect(history.record(count(3), for: "alice", excluding: nil) == 5)
        let frames = { (position: UInt64) in
            history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: position))?
                .map { "\($0.seq) " + String(decoding: $0.frame.head, as: UTF8.self) }
        }
        #expect(frames(0) == ["2 ring", "4 cancel", "5 count 3"])
        #expect(frames(2) == ["4 cancel", "5 count 3"])
        #expect(frames(3) == ["4 cancel", "5 count 3"])
        #expect(frames(4) == ["5 count 3"])
        #expect(frames(5) == [])
        let frameBytes = ["ring", "cancel", "count 3"].map(\.utf8.count).reduce(0, +)
        #expect(history.bytes == oneCount - "count 1".utf8.count + frameBytes + 4 * InMemoryPushHistory.bytesPerPush)
    }

    /// A count whose frame the per-user cap let go is not replaced again by the next count (its
    /// frame is not released twice): a recovery from before it still fails, one the cap covers
    /// gives the newest count, and the bytes are those of the frames left.
    @Test func aCountPastTheCapIsNotReplacedAgain() {
        let history = history(PushHistoryLimits(maxEntriesPerUser: 2), attaching: ["alice"])
        let empty = history.bytes
        func count(_ text: String) -> HistoryFrame {
            HistoryFrame(head: Array(text.utf8), event: .onMissedCallsChanged, sessionId: "")
        }
        _ = history.record(count("c1"), for: "alice", excluding: nil)
        for _ in 0..<3 { _ = history.record(frame("x"), for: "alice", excluding: nil) }
        #expect(history.record(count("c5"), for: "alice", excluding: nil) == 5)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 0)) == nil)
        #expect(history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 3))?.map(\.seq) == [4, 5])
        #expect(history.record(count("c6"), for: "alice", excluding: nil) == 6)
        let recovered = history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 4))
        #expect(recovered?.map { String(decoding: $0.frame.head, as: UTF8.self) } == ["c6"])
        #expect(history.bytes - empty == 6 * InMemoryPushHistory.bytesPerPush + "c6".utf8.count,
                "six entries, and one frame: the cap let the others go, c6 replaced c5")
    }

    @Test func theByteBoundEvictsTheOldestOfAllAndSharedFramesCountOnce() {
        let shared = frame(String(repeating: "g", count: 1_000))
        let users = (0..<100).map { "u\($0)" }
        let large = history(PushHistoryLimits(maxBytes: 1_000_000), attaching: users)
        for user in 0..<100 { _ = large.record(shared, for: "u\(user)", excluding: nil) }
        let perUser = InMemoryPushHistory.bytesPerUser + InMemoryPushHistory.bytesPerPush
        #expect(large.bytes == 1_000 + 100 * perUser + (0..<100).map { "u\($0)".utf8.count }.reduce(0, +))

        let small = history(PushHistoryLimits(maxBytes: 20_000), attaching: Array(users.prefix(10)))
        for index in 0..<100 { _ = small.record(frame(String(repeating: "p", count: 500)), for: "u\(index % 10)", excluding: nil) }
        #expect(small.bytes <= 20_000)
        let newest = small.position(of: "u9")
        #expect(small.entries(for: "u9", after: HistoryPosition(epoch: newest.epoch, seq: newest.seq - 1))?.map(\.seq) == [newest.seq])
        #expect(small.entries(for: "u0", after: HistoryPosition(epoch: "test-1", seq: 0)) == nil)
    }

    @Test func pastItsBytesTheHistoryEvictsInOneBatchDownToSevenEighths() {
        let history = history(PushHistoryLimits(maxBytes: 10_000), attaching: ["alice"])
        var before = history.bytes
        var evictions = 0
        for _ in 0..<100 {
            _ = history.record(frame(String(repeating: "p", count: 500)), for: "alice", excluding: nil)
            let after = history.bytes
            #expect(after <= 10_000)
            if after < before {
                evictions += 1
                #expect(after <= 10_000 - 10_000 / 8)
            }
            before = after
        }
        #expect(evictions >= 5 && evictions <= 40, "a batch evicts several pushes at once: \(evictions) batches for 100 pushes")
    }

    /// Users' pushes interleave in one log; each user recovers exactly their own, in order,
    /// from any position the per-user cap still covers, and nothing from one it does not.
    /// A third of the pushes are missed-call counts, so a recovery also passes over the counts a
    /// later one replaced.
    @Test func interleavedUsersEachRecoverTheirOwnWithinTheCap() {
        let users = ["alice", "bob", "carol"]
        let history = history(PushHistoryLimits(maxEntriesPerUser: 5), attaching: users)
        var sent: [String: [String]] = [:]
        var generator = SplitMix64(seed: 35)
        for n in 0..<90 {
            let uid = users[Int(generator.next() % 3)]
            let isCount = generator.next() % 3 == 0
            let text = "\(uid)-\(n)\(isCount ? "-count" : "")"
            sent[uid, default: []].append(text)
            let pushed = isCount ? HistoryFrame(head: Array(text.utf8), event: .onMissedCallsChanged, sessionId: "") : frame(text)
            #expect(history.record(pushed, for: uid, excluding: nil) == UInt64(sent[uid]!.count))
        }
        for uid in users {
            let all = sent[uid]!
            let newestCount = all.lastIndex { $0.hasSuffix("-count") }
            let epoch = history.position(of: uid).epoch
            for seq in 0...all.count {
                let missed = history.entries(for: uid, after: HistoryPosition(epoch: epoch, seq: UInt64(seq)))
                if all.count - seq <= 5 {
                    let kept = (seq..<all.count).filter { !all[$0].hasSuffix("-count") || $0 == newestCount }
                    #expect(missed?.map { String(decoding: $0.frame.head, as: UTF8.self) } == kept.map { all[$0] })
                    #expect(missed?.map(\.seq) == kept.map { UInt64($0 + 1) })
                } else {
                    #expect(missed == nil)
                }
            }
        }
    }

    /// A user pushed far past the cap holds at most twice the cap's frames, not every one.
    @Test func aBusyUserHoldsAtMostTwiceTheCapsFrames() {
        let history = history(PushHistoryLimits(maxEntriesPerUser: 3), attaching: ["alice"])
        for n in 0..<100 {
            _ = history.record(frame(String(repeating: "\(n % 10)", count: 1_000)), for: "alice", excluding: nil)
        }
        let bookkeeping = InMemoryPushHistory.bytesPerUser + "alice".utf8.count + 100 * InMemoryPushHistory.bytesPerPush
        #expect(history.bytes <= bookkeeping + 6 * 1_000)
        let missed = history.entries(for: "alice", after: HistoryPosition(epoch: "test-1", seq: 97))
        #expect(missed?.map(\.seq) == [98, 99, 100])
        #expect(missed?.allSatisfy { $0.frame.head.count == 1_000 } == true)
    }

    /// When the users' own bookkeeping takes most of the bytes, an overflow evicts only what it
    /// must of the pushes, not all of them.
    @Test func anOverflowBesideLargeBookkeepingKeepsTheNewestPushes() {
        let users = (0..<14).map { "u\($0)" }
        let history = history(PushHistoryLimits(maxBytes: 3_000), attaching: users)
        for _ in 0..<3 {
            _ = history.record(frame(String(repeating: "p", count: 10)), for: "u0", excluding: nil)
        }
        #expect(history.bytes <= 3_000)
        #expect(history.entries(for: "u0", after: HistoryPosition(epoch: "test-1", seq: 1))?.map(\.seq) == [2, 3])
        #expect(history.userCount == 14)
    }
}


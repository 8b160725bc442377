import CallGateCore
import CallGateProtocol
import Testing

/// The steps of marking missed calls seen (`SeenWalk`): where each starts, when the walk ends,
/// and what the count row becomes.
struct SeenWalkTests {
    let full = SeenWalk.callsPerTransaction

    @Test func nothingUnseenEndsTheWalkWithoutAStep() {
        var walk = SeenWalk(limit: .max)
        #expect(walk.begin(count: MissedCalls(unseen: 0, revision: 3), unseenFrom: nil) == nil)
        #expect(walk.isDone && walk.mark == SeenMark(count: MissedCalls(unseen: 0, revision: 3), marked: 0))
    }

    @Test func aWholeLogInTwoStepsEndsAtZeroWithTheRevisionRaisedByEach() {
        var walk = SeenWalk(limit: .max)
        let first = MissedCalls(unseen: 5, revision: 10)
        #expect(walk.begin(count: first, unseenFrom: 40) == 40)
        let after = walk.end(from: 40, walked: full, last: 900, marked: 3, count: first, unseenFrom: 40)
        #expect(after.count == MissedCalls(unseen: 2, revision: 11) && after.unseenFrom == 901)
        #expect(!walk.isDone)

        #expect(walk.begin(count: after.count, unseenFrom: 901) == 901)
        let last = walk.end(from: 901, walked: 7, last: 950, marked: 2, count: after.count, unseenFrom: 901)
        #expect(last.count == MissedCalls(unseen: 0, revision: 12) && last.unseenFrom == nil)
        #expect(walk.isDone && walk.mark == SeenMark(count: last.count, marked: 5))
    }

    @Test func aCallMissedMeanwhileBelowTheWalkKeepsTheUsersStart() {
        var walk = SeenWalk(limit: .max)
        let first = MissedCalls(unseen: 3, revision: 1)
        _ = walk.begin(count: first, unseenFrom: 100)
        let after = walk.end(from: 100, walked: full, last: 800, marked: 1, count: first, unseenFrom: 100)
        #expect(after.unseenFrom == 801)
        // Between the steps call 50, ringing until now, was missed: the start went down to 50.
        let meanwhile = MissedCalls(unseen: after.count.unseen + 1, revision: after.count.revision + 1)
        #expect(walk.begin(count: meanwhile, unseenFrom: 50) == 801)
        let last = walk.end(from: 801, walked: 3, last: 803, marked: 2, count: meanwhile, unseenFrom: 50)
        #expect(last.count.unseen == 1 && last.unseenFrom == 50)
        #expect(walk.isDone && walk.marked == 3)
    }

    @Test func throughACallTheStartMovesPastIt() {
        var walk = SeenWalk(limit: 500)
        let first = MissedCalls(unseen: 4, revision: 2)
        #expect(walk.begin(count: first, unseenFrom: 300) == 300)
        let after = walk.end(from: 300, walked: 40, last: 498, marked: 1, count: first, unseenFrom: 300)
        #expect(after.count == MissedCalls(unseen: 3, revision: 3) && after.unseenFrom == 501)
        #expect(walk.isDone)
    }

    @Test func aStartPastTheLimitMarksNothing() {
        var walk = SeenWalk(limit: 200)
        #expect(walk.begin(count: MissedCalls(unseen: 2, revision: 5), unseenFrom: 300) == nil)
        #expect(walk.isDone && walk.marked == 0)
    }

    @Test func aCountWithoutItsStartIsWalkedFromTheFirstCallAndSetRight() {
        var walk = SeenWalk(limit: .max)
        let wrong = MissedCalls(unseen: 4, revision: 7)
        #expect(walk.begin(count: wrong, unseenFrom: nil) == .min)
        let after = walk.end(from: .min, walked: 12, last: 60, marked: 1, count: wrong, unseenFrom: nil)
        #expect(after.count == MissedCalls(unseen: 0, revision: 8) && after.unseenFrom == nil)
    }

    @Test func nothingMarkedAndNothingCorrectedKeepsTheRevision() {
        var walk = SeenWalk(limit: 90)
        let count = MissedCalls(unseen: 1, revision: 4)
        _ = walk.begin(count: count, unseenFrom: 80)
        let after = walk.end(from: 80, walked: 2, last: 85, marked: 0, count: count, unseenFrom: 80)
        #expect(after.count == count && after.unseenFrom == 91)
    }
}

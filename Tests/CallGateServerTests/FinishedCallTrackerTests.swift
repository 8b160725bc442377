import CallGateCore
import CallGateProtocol
@testable import CallGateServer
import Testing

/// Each rung call is counted once, when it first shows a terminal status.
@Suite struct FinishedCallTrackerTests {
    private func record(_ id: Int64, _ status: CallStatus, _ category: CallCategory = .call) -> CallLogRecord {
        var record = CallLogWriterTests.record(id, status)
        record.callCategory = category
        return record
    }

    private func finished(_ tracker: inout FinishedCallTracker, _ changes: [CallLogRecord]) -> [CallStatus] {
        var statuses: [CallStatus] = []
        tracker.observe(changes) { statuses.append($0) }
        return statuses
    }

    @Test func aCallSeenOpenCountsOnceWhenItEnds() {
        var tracker = FinishedCallTracker()
        #expect(finished(&tracker, [record(1, .initiated)]) == [])
        #expect(finished(&tracker, [record(1, .ongoing)]) == [])
        #expect(finished(&tracker, [record(1, .ended)]) == [.ended])
        #expect(finished(&tracker, [record(1, .ended)]) == [])
    }

    @Test func aCallBornFinishedCountsOnce() {
        var tracker = FinishedCallTracker()
        #expect(finished(&tracker, [record(1, .initiated), record(2, .busy)]) == [.busy])
        #expect(finished(&tracker, [record(2, .busy)]) == [])
        #expect(finished(&tracker, [record(1, .unanswered), record(3, .busy)]) == [.unanswered, .busy])
    }

    @Test func callsLeftOpenByAPreviousRunCountWhenTheyEnd() {
        var tracker = FinishedCallTracker(openCalls: [record(4, .ongoing)], lastCallID: 9)
        #expect(finished(&tracker, [record(4, .ended)]) == [.ended])
        #expect(finished(&tracker, [record(7, .cancelled)]) == [])
        #expect(finished(&tracker, [record(10, .rejected)]) == [.rejected])
    }

    @Test func meetingsAreNotRungCalls() {
        var tracker = FinishedCallTracker()
        #expect(finished(&tracker, [record(1, .ongoing, .meet)]) == [])
        #expect(finished(&tracker, [record(1, .ended, .meet), record(2, .busy)]) == [.busy])
    }
}

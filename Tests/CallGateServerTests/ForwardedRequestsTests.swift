import CallGateCore
@testable import CallGateServer
import Testing

@Suite struct ForwardedRequestsTests {
    let device = ConnectionID(7)

    @Test func anAnsweredForwardIsSettledOnceAndNeverExpires() {
        var forwards = ForwardedRequests()
        let ticket = forwards.open(.device(device, requestID: "r1"), owner: "a", deadline: 100)
        #expect(forwards.close(ticket)?.requestID == "r1")
        #expect(forwards.close(ticket) == nil)
        #expect(forwards.expire(now: 1_000).isEmpty)
        #expect(forwards.nextDeadline() == nil && forwards.count == 0)
    }

    @Test func forwardsExpireInOrderAtTheirDeadlines() {
        var forwards = ForwardedRequests()
        let first = forwards.open(.device(device, requestID: "r1"), owner: "a", deadline: 100)
        let second = forwards.open(.device(device, requestID: "r2"), owner: "b", deadline: 150)
        _ = forwards.open(.device(device, requestID: "r3"), owner: "a", deadline: 200)
        #expect(first != second)
        #expect(forwards.expire(now: 99).isEmpty)
        #expect(forwards.nextDeadline() == 100)
        _ = forwards.close(second)
        #expect(forwards.expire(now: 150).map(\.requestID) == ["r1"])
        #expect(forwards.nextDeadline() == 200)
        #expect(forwards.expire(now: 200).map(\.requestID) == ["r3"])
        #expect(forwards.count == 0 && forwards.nextDeadline() == nil)
    }

    @Test func manyForwardsExpireInTheOrderOfTheirDeadlines() {
        var forwards = ForwardedRequests()
        for index in 0..<5_000 {
            _ = forwards.open(.device(device, requestID: "r\(index)"), owner: "a", deadline: Int64(index))
        }
        var expired: [String?] = []
        for now in stride(from: Int64(0), to: 5_000, by: 700) {
            expired += forwards.expire(now: now).map(\.requestID)
        }
        expired += forwards.expire(now: 5_000).map(\.requestID)
        #expect(expired == (0..<5_000).map { "r\($0)" })
    }

    @Test func aHeldForwardWaitsOnToItsLongerBoundUnlessAnsweredOrItsOwnerLeaves() {
        var forwards = ForwardedRequests()
        let held = forwards.open(.device(device, requestID: "r1"), owner: "a", deadline: 100)
        let answered = forwards.open(.device(device, requestID: "r2"), owner: "a", deadline: 110)
        _ = forwards.open(.device(device, requestID: "r3"), owner: "b", deadline: 120)
        let orphan = forwards.open(.device(device, requestID: "r4"), owner: "b", deadline: 130)
        let late = forwards.open(.device(device, requestID: "r5"), owner: "a", deadline: 140)
        forwards.hold(held, until: 1_000)
        forwards.hold(answered, until: 1_010)
        forwards.hold(orphan, until: 1_020)
        forwards.hold(late, until: 1_030)
        forwards.hold(held, until: 5_000)
        forwards.hold(9_999, until: 5_000)
        #expect(forwards.nextDeadline() == 120, "held forwards wait for their longer bound")
        #expect(forwards.expire(now: 125).map(\.requestID) == ["r3"])
        #expect(forwards.nextDeadline() == 1_000 && forwards.count == 4)
        #expect(forwards.close(answered)?.requestID == "r2")
        #expect(forwards.abandon(owners: ["b"]).map(\.requestID) == ["r4"])
        #expect(forwards.expire(now: 1_000).map(\.requestID) == ["r1"], "held once, at its first bound")
        #expect(forwards.nextDeadline() == 1_030)
        #expect(forwards.abandon(owners: ["a"]).map(\.requestID) == ["r5"])
        #expect(forwards.count == 0 && forwards.nextDeadline() == nil)
    }

    @Test func aForwardOpenedAfterAHeldOneStillExpires() {
        var forwards = ForwardedRequests()
        let held = forwards.open(.device(device, requestID: "r1"), owner: "a", deadline: 100)
        forwards.hold(held, until: 60_000)
        _ = forwards.open(.device(device, requestID: "r2"), owner: "a", deadline: 200)
        #expect(forwards.nextDeadline() == 200, "the timer is armed for the new forward")
        #expect(forwards.expire(now: 200).map(\.requestID) == ["r2"])
        #expect(forwards.nextDeadline() == 60_000)
    }
}

extension ForwardedRequests.Pending {
    /// The `id` of the device request waiting; nil for an admin request.
    var requestID: String? {
        guard case .device(_, let requestID) = asker else { return nil }
        return requestID
    }
}

import CallGateClient
import CallGateKit
import CallGateProtocol
import Foundation
import Testing

/// The call log API over real HTTP, fed by real calls over real sockets; every test runs on
/// SQLite and on PostgreSQL, which must answer the same.
@Suite("Call logs over real HTTP")
struct CallLogAPITests {
    /// Alice, Bob and Carol make five calls, newest last:
    /// 1 alice->bob answered and ended; 2 bob->alice video, rejected; 3 alice->bob cancelled;
    /// 4 carol->bob unanswered; 5 alice->team (all three), bob answers, carol declines, ended.
    struct History {
        let gateway: TestGateway
        let ended: Call
        let rejected: Call
        let cancelled: Call
        let unanswered: Call
        let group: Call

        static func make(_ store: TestStore) async throws -> History {
            let gateway = try await TestGateway(store: store)
            let alice = try await gateway.device("alice")
            let bob = try await gateway.device("bob")
            let carol = try await gateway.device("carol")

            let ended = try await alice.establishCall(with: bob, uid: "bob")
            _ = try await alice.endCall(ended.sessionId)
            _ = try await bob.expectPush()

            let rejected = try await bob.initiateCall(to: "alice", callType: .video)
            _ = try await alice.expectPush()
            _ = try await alice.rejectCall(rejected.sessionId, status: .rejected)
            _ = try await bob.expectPush()

            let cancelled = try await alice.ring("bob", ringing: [bob])
            _ = try await alice.rejectCall(cancelled.sessionId, status: .cancelled)
            _ = try await bob.expectPush()

            let unanswered = try await carol.ring("bob", ringing: [bob], timeout: 1)
            _ = try await carol.expectPush(within: .seconds(5))
            _ = try await bob.expectPush(within: .seconds(5))

            try await gateway.putGroup("team", members: ["alice", "bob", "carol"])
            let group = try await alice.initiateCall(to: "team", receiverType: .group)
            _ = try await bob.expectPush()
            _ = try await carol.expectPush()
            _ = try await bob.acceptCall(group.sessionId)
            _ = try await alice.expectPush()
            _ = try await carol.rejectCall(group.sessionId, status: .rejected)
            _ = try await bob.endCall(group.sessionId)
            _ = try await alice.expectPush()
            return History(
                gateway: gateway, ended: ended, rejected: rejected, cancelled: cancelled, unanswered: unanswered,
                group: group)
        }
    }

    @Test(arguments: TestStore.allCases) func eachUserSeesTheirCallsNewestFirstFromTheirSide(store: TestStore) async throws {
        let h = try await History.make(store)
        defer { h.gateway.shutdown() }
        let bob = try await h.gateway.callLogs("bob")
        #expect(bob.data.map(\.sessionId)
            == [h.group, h.unanswered, h.cancelled, h.rejected, h.ended].map(\.sessionId))
        #expect(bob.data.map(\.callStatus) == [.ended, .unanswered, .cancelled, .rejected, .ended])
        #expect(bob.data.map(\.callDirection) == [.incoming, .incoming, .incoming, .outgoing, .incoming])
        #expect(bob.data.map(\.missed) == [nil, true, true, nil, nil])
        #expect(bob.meta.pagination == CallLogPagination(total: 5, perPage: 30, currentPage: 1, totalPages: 1))
        #expect(bob.meta.cursor == CallLogCursors())

        let carol = try await h.gateway.callLogIDs("carol")
        #expect(carol == [h.group, h.unanswered].map(\.sessionId))
        let alice = try await h.gateway.callLogs("alice")
        #expect(alice.data.map(\.callDirection) == [.outgoing, .outgoing, .incoming, .outgoing])
        #expect(alice.data.map(\.missed) == [nil, nil, nil, nil])
    }

    @Test(arguments: TestStore.allCases) func aLogHoldsParticipantsStatesAndDurations(store: TestStore) async throws {
        let h = try await History.make(store)
        defer { h.gateway.shutdown() }
        let (status, body) = try await h.gateway.userGet("/v3.0/calls/\(h.group.sessionId)", as: "carol")
        #expect(status == 200)
        let detail = try JSONDecoder().decode(CallLogDetailBody.self, from: body)
        let log = try #require(detail.data.first)
        #expect(detail.data.count == 1)
        #expect(log.callCategory == .call)
        #expect(log.receiverType == .group)
        #expect(log.participants.map(\.uid) == ["alice", "bob", "carol"])
        #expect(log.participants.map(\.state) == [.joined, .joined, .declined])
        #expect(log.participants[1].joinedAt == log.startedAt)
        #expect(log.participants[2].joinedAt == nil)
        #expect(log.startedAt != nil && log.endedAt != nil)
        #expect(log.duration == log.endedAt! - log.startedAt!)
        #expect(!log.hasRecording)

        let missed = try await h.gateway.callLogs("bob", "status=unanswered").data
        #expect(missed.map(\.participants.last?.state) == [.missed])
        #expect(missed.first?.duration == 0)
    }

    @Test(arguments: TestStore.allCases) func everyFilterNarrowsTheList(store: TestStore) async throws {
        let h = try await History.make(store)
        defer { h.gateway.shutdown() }
        let g = h.gateway
        #expect(try await g.callLogIDs("bob", "direction=outgoing") == [h.rejected.sessionId])
        #expect(try await g.callLogIDs("bob", "direction=incoming").count == 4)
        #expect(try await g.callLogIDs("bob", "status=cancelled") == [h.cancelled.sessionId])
        #expect(try await g.callLogIDs("bob", "type=video") == [h.rejected.sessionId])
        #expect(try await g.callLogIDs("bob", "uid=carol") == [h.group, h.unanswered].map(\.sessionId))
        #expect(try await g.callLogIDs("bob", "guid=team") == [h.group.sessionId])
        #expect(try await g.callLogIDs("bob", "mode=call").count == 5)
        #expect(try await g.callLogIDs("bob", "mode=meet") == [])
        #expect(try await g.callLogIDs("bob", "hasRecording=1") == [])
        #expect(try await g.callLogIDs("alice", "direction=outgoing&status=ended") == [h.group, h.ended].map(\.sessionId))
    }

    @Test(arguments: TestStore.allCases) func anotherUsersCallIs404AndTokensAreRequired(store: TestStore) async throws {
        let h = try await History.make(store)
        defer { h.gateway.shutdown() }
        let g = h.gateway
        #expect(try await g.userGet("/v3.0/calls/\(h.ended.sessionId)", as: "carol").0 == 404)
        #expect(try await g.userGet("/v3.0/calls/\(h.ended.sessionId)", as: "alice", bearer: true).0 == 200)
        #expect(try await g.userGet("/v3.0/calls/no-such-call", as: "alice").0 == 404)
        #expect(try await g.userGet("/v3.0/calls", as: nil).0 == 401)
        #expect(try await g.callLogIDs("dave") == [])

        #expect(try await g.get("/v3.0/calls", headers: ["authToken": "not-a-token"]).0 == 401)
    }

    @Test(arguments: TestStore.allCases) func badParametersAre400NamingThem(store: TestStore) async throws {
        let gateway = try await TestGateway(store: store)
        defer { gateway.shutdown() }
        for (query, parameter) in [("perPage=500", "perPage"), ("status=lost", "status"), ("cursor=zzz", "cursor")] {
            let (status, body) = try await gateway.userGet("/v3.0/calls?\(query)", as: "alice")
            #expect(status == 400)
            #expect(String(decoding: body, as: UTF8.self).contains(#""message":"\#(parameter):"#))
        }
    }

    @Test(arguments: TestStore.allCases) func pagesAndCursorsWalkTheWholeListEvenWhileCallsArrive(store: TestStore) async throws {
        let h = try await History.make(store)
        defer { h.gateway.shutdown() }
        let g = h.gateway
        let all = [h.group, h.unanswered, h.cancelled, h.rejected, h.ended].map(\.sessionId)

        let page2 = try await g.callLogs("bob", "page=2&perPage=2")
        #expect(page2.data.map(\.sessionId) == Array(all[2..<4]))
        #expect(page2.meta.pagination == CallLogPagination(total: 5, perPage: 2, currentPage: 2, totalPages: 3))
        #expect(try await g.callLogIDs("bob", "page=4&perPage=2") == [])

        let first = try await g.callLogs("bob", "perPage=2")
        #expect(first.data.map(\.sessionId) == Array(all[0..<2]))
        let next = try #require(first.meta.cursor.next)
        #expect(first.meta.cursor.previous == nil)

        // A new call arrives: page numbers shift, the cursor does not.
        let alice = try await g.device("alice")
        let bob = try await g.device("bob")
        let newest = try await alice.ring("bob", ringing: [bob])
        try await g.awaitLogged(newest.sessionId, for: "bob")

        let second = try await g.callLogs("bob", "perPage=2&cursor=\(next)")
        #expect(second.data.map(\.sessionId) == Array(all[2..<4]))
        let third = try await g.callLogs("bob", "perPage=2&cursor=\(try #require(second.meta.cursor.next))")
        #expect(third.data.map(\.sessionId) == [all[4]])
        #expect(third.meta.cursor.next == nil)

        let back = try await g.callLogs("bob", "perPage=2&cursor=\(try #require(second.meta.cursor.previous))")
        #expect(back.data.map(\.sessionId) == Array(all[0..<2]))
        let newer = try await g.callLogs("bob", "perPage=2&cursor=\(try #require(back.meta.cursor.previous))")
        #expect(newer.data.map(\.sessionId) == [newest.sessionId])
        #expect(newer.data.first?.callStatus == .initiated)
        #expect(newer.data.first?.participants.last?.state == .ringing)
    }

    @Test(arguments: TestStore.allCases) func aMeetingWithARecordingGetsItsURLAttached(store: TestStore) async throws {
        let gateway = try await TestGateway(store: store)
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let token = try await alice.generateToken(sessionId: "standup.42")
        _ = try await alice.joinSession(callToken: token.callToken)
        _ = try await alice.startRecording("standup.42")
        _ = try await alice.stopRecording("standup.42")
        _ = try await alice.leaveSession("standup.42")

        let url = "https://files.example/standup.42-r1.mp4"
        let (attached, _) = try await gateway.admin(
            "POST", "/v1/calls/standup.42/recordings/standup.42-r1", json: #"{"recordingUrl":"\#(url)"}"#)
        #expect(attached == 200)
        let (missing, _) = try await gateway.admin(
            "POST", "/v1/calls/standup.42/recordings/standup.42-r2", json: #"{"recordingUrl":"\#(url)"}"#)
        #expect(missing == 404)

        let meets = try await gateway.callLogs("alice", "mode=meet&hasRecording=1").data
        let meet = try #require(meets.first)
        #expect(meets.count == 1)
        #expect(meet.callCategory == .meet)
        #expect(meet.callStatus == .ended)
        #expect(meet.receiver == nil)
        #expect(meet.initiator.uid == "alice")
        #expect(meet.recordings.map(\.rid) == ["standup.42-r1"])
        #expect(meet.recordings.first?.recordingUrl == url)
    }
}

import CallGateCore
import CallGateServer
import Foundation
import Testing

@Suite struct AdminGroupRouteTests {
    static let team = GroupRecord(guid: "team", name: "Team", icon: "https://example.com/t.png", members: ["alice", "bob"])

    @Test func putCreatesAGroup() async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(
            .put, "/v1/groups/team", json: #"{"name":"Team","icon":"https://example.com/t.png","members":["alice","bob"]}"#)
        #expect(response.status == 200)
        let detail = try AdminFixture.decode(GroupDetail.self, response)
        #expect(detail == GroupDetail(Self.team))
        #expect(detail.membersCount == 2)
        #expect(admin.store.group("team") == Self.team)
    }

    @Test func groupDetailJSONHasTheContractShapeAndOmitsAbsentIcon() async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(.put, "/v1/groups/g1", json: #"{"name":"G","members":["a"],"icon":null}"#)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"guid":"g1","members":["a"],"membersCount":1,"name":"G"}"#)
    }

    @Test func putReplacesAnExistingGroup() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        let response = admin.respond(.put, "/v1/groups/team", json: #"{"name":"Renamed","members":["carol"]}"#)
        #expect(response.status == 200)
        let expected = GroupRecord(guid: "team", name: "Renamed", members: ["carol"])
        #expect(try AdminFixture.decode(GroupDetail.self, response) == GroupDetail(expected))
        #expect(admin.store.group("team") == expected)
    }

    @Test func putDedupsMembersAndIgnoresUnknownFields() async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(
            .put, "/v1/groups/team", json: #"{"name":"T","members":["a","b","a"],"colour":{"any":[1,2]}}"#)
        #expect(response.status == 200)
        #expect(try AdminFixture.decode(GroupDetail.self, response).members == ["a", "b"])
    }

    @Test func guidIsPercentDecodedOnce() async throws {
        let admin = try await AdminFixture()
        #expect(admin.respond(.put, "/v1/groups/team%3A1", json: #"{"name":"T","members":[]}"#).status == 200)
        #expect(admin.store.group("team:1") != nil)
        let response = admin.respond(.get, "/v1/groups/team:1")
        #expect(try AdminFixture.decode(GroupDetail.self, response).guid == "team:1")
        let twice = admin.respond(.put, "/v1/groups/team%253A2", json: #"{"name":"T","members":[]}"#)
        #expect(twice.status == 400, "%25 decodes to a '%', which no guid holds")
        #expect(admin.store.group("team:2") == nil)
    }

    @Test func getReturnsTheGroup() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        let response = admin.respond(.get, "/v1/groups/team")
        #expect(response.status == 200)
        #expect(try AdminFixture.decode(GroupDetail.self, response) == GroupDetail(Self.team))
    }

    @Test func getUnknownGroupIs404() async throws {
        let admin = try await AdminFixture()
        AdminFixture.expectError(admin.respond(.get, "/v1/groups/nope"), 404, .groupNotFound, "group 'nope' not found")
    }

    @Test func deleteRemovesTheGroupWith204() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        let response = admin.respond(.delete, "/v1/groups/team")
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.contentType == nil)
        #expect(admin.store.group("team") == nil)
        AdminFixture.expectError(admin.respond(.delete, "/v1/groups/team"), 404, .groupNotFound)
    }

    @Test func postMembersAddsWithoutDuplicates() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        let response = admin.respond(.post, "/v1/groups/team/members", json: #"{"uids":["bob","carol","carol","dave"]}"#)
        #expect(response.status == 200)
        let detail = try AdminFixture.decode(GroupDetail.self, response)
        #expect(detail.members == ["alice", "bob", "carol", "dave"])
        #expect(detail.membersCount == 4)
        #expect(admin.store.group("team")?.members == ["alice", "bob", "carol", "dave"])
    }

    @Test func postMembersToUnknownGroupIs404() async throws {
        let admin = try await AdminFixture()
        AdminFixture.expectError(
            admin.respond(.post, "/v1/groups/nope/members", json: #"{"uids":["a"]}"#), 404, .groupNotFound)
        #expect(admin.store.group("nope") == nil)
    }

    @Test func deleteMemberRemovesIt() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        let response = admin.respond(.delete, "/v1/groups/team/members/alice")
        #expect(response.status == 200)
        #expect(try AdminFixture.decode(GroupDetail.self, response).members == ["bob"])
        #expect(admin.store.group("team")?.members == ["bob"])
    }

    @Test func deleteUnknownMemberOrGroupIs404() async throws {
        let admin = try await AdminFixture(groups: [Self.team])
        AdminFixture.expectError(
            admin.respond(.delete, "/v1/groups/team/members/zed"), 404, .notFound, "user 'zed' is not a member of group 'team'")
        AdminFixture.expectError(admin.respond(.delete, "/v1/groups/nope/members/alice"), 404, .groupNotFound)
        #expect(admin.store.group("team") == Self.team)
    }

    @Test func healthzNeedsNoAuth() async throws {
        let admin = try await AdminFixture()
        let response = admin.respond(AdminFixture.request(.get, "/healthz", authorization: nil))
        #expect(response.status == 200)
        #expect(try AdminFixture.decode([String: String].self, response) == ["status": "ok"])
    }

    @Test func healthzIgnoresTheQuery() async throws {
        let admin = try await AdminFixture()
        let request = HTTPRequest(method: .get, path: "/healthz", queryItems: ["verbose=1"])
        #expect(admin.respond(request).status == 200)
    }
}

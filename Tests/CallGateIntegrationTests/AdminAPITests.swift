import CallGateClient
import CallGateProtocol
import Foundation
import Testing

@Suite("Admin API over real HTTP")
struct AdminAPITests {
    @Test func healthNeedsNoKey() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (status, body) = try await gateway.admin("GET", "/healthz", key: nil)
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
    }

    @Test func everyAdminRouteWantsTheKey() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        #expect(try await gateway.admin("GET", "/v1/groups/team", key: nil).0 == 401)
        #expect(try await gateway.admin("GET", "/v1/groups/team", key: "wrong").0 == 401)
        #expect(try await gateway.admin("POST", "/v1/tokens", json: #"{"uid":"x"}"#, key: nil).0 == 401)
    }

    @Test func groupsCanBeCreatedReadChangedAndDeleted() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (created, createdBody) = try await gateway.admin(
            "PUT", "/v1/groups/team", json: #"{"name":"Team","members":["alice","bob"]}"#)
        #expect(created == 200)
        #expect(String(decoding: createdBody, as: UTF8.self).contains(#""membersCount":2"#))

        #expect(try await gateway.admin("POST", "/v1/groups/team/members", json: #"{"uids":["carol","bob"]}"#).0 == 200)
        let (read, readBody) = try await gateway.admin("GET", "/v1/groups/team")
        #expect(read == 200)
        let detail = try JSONSerialization.jsonObject(with: readBody) as? [String: Any]
        #expect(detail?["members"] as? [String] == ["alice", "bob", "carol"])

        #expect(try await gateway.admin("DELETE", "/v1/groups/team/members/bob").0 == 200)
        #expect(try await gateway.admin("DELETE", "/v1/groups/team").0 == 204)
        #expect(try await gateway.admin("GET", "/v1/groups/team").0 == 404)
    }

    @Test func badBodiesAre400AndNeverCrashTheGateway() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        for body in ["{", #"{"name":5,"members":[]}"#, #"{"name":"T","members":"alice"}"#, "[]", ""] {
            let (status, data) = try await gateway.admin("PUT", "/v1/groups/team", json: body)
            #expect(status == 400, "\(body)")
            #expect(String(decoding: data, as: UTF8.self).contains("ERR_BAD_REQUEST"))
        }
        let (tooLarge, _) = try await gateway.admin("PUT", "/v1/groups/team", json: String(repeating: " ", count: 70_000))
        #expect(tooLarge == 413)
        #expect(try await gateway.admin("GET", "/healthz", key: nil).0 == 200)
    }

    @Test func aMintedTokenConnects() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (status, body) = try await gateway.admin("POST", "/v1/tokens", json: #"{"uid":"zoe","name":"Zoe","ttl":600}"#)
        #expect(status == 200)
        let minted = try JSONDecoder().decode([String: AnyCodableScalar].self, from: body)
        guard case .string(let token)? = minted["token"] else {
            Issue.record("no token in \(String(decoding: body, as: UTF8.self))")
            return
        }
        let socket = try await gateway.socket()
        let result = try await socket.connect(token: token)
        #expect(result.user == User(uid: "zoe", name: "Zoe"))
    }
}

/// A JSON string or number, for reading small HTTP bodies in tests.
enum AnyCodableScalar: Decodable {
    case string(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }
}

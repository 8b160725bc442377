import CallGateProtocol
import Foundation
import Testing

@Suite struct CallCodingTests {
    @Test func optionalFieldsAreOmittedNotNull() {
        let text = JSONText.string(ReplyFrame.success(id: "1", result: Samples.ringing))
        #expect(text == #"{"id":"1","result":{"callCategory":"call","callStatus":"initiated","callType":"video","#
            + #""callUUID":"0f8c8a5a-41c7-5a0e-9d5e-2b8f3b7d6c11","#
            + #""initiatedAt":1700000000,"initiator":{"avatar":"https://img.example/a/alice.png","name":"Alice","#
            + #""uid":"alice"},"receiver":{"name":"Bob","uid":"bob"},"receiverType":"user","#
            + #""ringExpiresAt":1700000045,"sessionId":"v1.00ff"}}"#)
        #expect(!text.contains("null"))
    }

    @Test func groupReceiverEncodesAsTheBareGroup() throws {
        let text = try JSONText.encode(Samples.ended)
        #expect(text.contains(#""receiver":{"guid":"team","membersCount":4,"name":"Team"}"#))
        #expect(text.contains(#""metadata":{"n":3,"topic":"standup"}"#))
    }

    @Test(arguments: [Samples.ringing, Samples.ended])
    func roundTrips(call: Call) throws {
        let data = ReplyFrame.success(id: "r", result: call)
        let decoded = try ServerFrame.decode(data)
        guard case .reply(let id, let outcome) = decoded else {
            Issue.record("expected a reply, got \(decoded)")
            return
        }
        #expect(id == "r")
        #expect(try outcome.decodeResult(Call.self) == call)
    }

    @Test func receiverDecodesByTheGuidKey() throws {
        let group = try JSONDecoder().decode(
            CallReceiver.self, from: JSONText.data(#"{"guid":"g","name":"G","membersCount":2}"#))
        let user = try JSONDecoder().decode(CallReceiver.self, from: JSONText.data(#"{"uid":"u","name":"U"}"#))
        #expect(group == .group(Group(guid: "g", name: "G", membersCount: 2)))
        #expect(user == .user(User(uid: "u", name: "U")))
    }
}

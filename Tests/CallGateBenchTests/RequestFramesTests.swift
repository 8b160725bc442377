import Foundation
import Testing

@testable import CallGateBench

@Suite struct RequestFramesTests {
    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    private func data(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try object(bytes)["data"] as? [String: Any])
    }

    @Test func connectCarriesTheToken() throws {
        let frame = try object(RequestFrames.connect(token: "a.b.c"))
        #expect(frame["id"] as? String == "c")
        #expect(frame["op"] as? String == "connect")
        #expect(try data(RequestFrames.connect(token: "a.b.c"))["token"] as? String == "a.b.c")
    }

    @Test func initiateNamesReceiverAndType() throws {
        let bytes = RequestFrames.initiate(receiverId: "bench-g3", receiverType: .group)
        #expect(try object(bytes)["op"] as? String == "initiateCall")
        #expect(try object(bytes)["id"] as? String == "i")
        let fields = try data(bytes)
        #expect(fields["receiverId"] as? String == "bench-g3")
        #expect(fields["receiverType"] as? String == "group")
        #expect(fields["callType"] as? String == "audio")
    }

    @Test func sessionOpsCarryTheSessionIdAndTheirIds() throws {
        let id = Array("s:1".utf8)
        #expect(try object(RequestFrames.accept(sessionId: id))["op"] as? String == "acceptCall")
        #expect(try object(RequestFrames.accept(sessionId: id))["id"] as? String == "a")
        #expect(try object(RequestFrames.end(sessionId: id))["op"] as? String == "endCall")
        #expect(try object(RequestFrames.end(sessionId: id))["id"] as? String == "e")
        let cancel = try data(RequestFrames.cancel(sessionId: id))
        #expect(cancel["sessionId"] as? String == "s:1")
        #expect(cancel["status"] as? String == "cancelled")
        #expect(try object(RequestFrames.cancel(sessionId: id))["id"] as? String == "x")
    }

    @Test func oddCharactersAreEscaped() throws {
        let id = Array("a\"b\\c\n".utf8)
        #expect(try data(RequestFrames.end(sessionId: id))["sessionId"] as? String == "a\"b\\c\n")
        #expect(try data(RequestFrames.connect(token: "t\"x"))["token"] as? String == "t\"x")
    }

    @Test func everyKindHasItsOwnIdLetter() {
        #expect(Set(RequestKind.allCases.map(\.id)).count == RequestKind.allCases.count)
        for kind in RequestKind.allCases {
            #expect(RequestKind(rawValue: Array(kind.id.utf8)[0]) == kind)
        }
    }
}

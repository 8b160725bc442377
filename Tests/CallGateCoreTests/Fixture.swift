@testable import CallGateCore
import CallGateProtocol
import Testing

/// A core with a manual clock, scripted session ids and an in-memory group store, plus
/// shorthands for the ops. Users are `User(uid:name:)` with a capitalised name.
final class Fixture {
    static let start: Int64 = 1_700_000_000_000

    let clock = ManualClock(millis: start)
    let groups = InMemoryGroupStore()
    let sessionIDs: ScriptedSessionIDs
    let core: GatewayCore
    private var lastConnection: UInt64 = 0

    init(_ configuration: CoreConfiguration = .init(), sessionIDs: [String] = []) {
        self.sessionIDs = ScriptedSessionIDs(sessionIDs)
        core = GatewayCore(configuration: configuration, clock: clock, groups: groups, sessionIDs: self.sessionIDs)
    }

    static func user(_ uid: String) -> User {
        User(uid: uid, name: uid.prefix(1).uppercased() + uid.dropFirst())
    }

    /// Connects one more device of `uid`.
    @discardableResult
    func connect(_ uid: String) -> ConnectionID {
        lastConnection += 1
        let connection = ConnectionID(lastConnection)
        _ = core.connect(connection, user: Self.user(uid))
        return connection
    }

    /// Connects `count` devices of `uid`.
    func devices(_ uid: String, _ count: Int) -> [ConnectionID] {
        (0..<count).map { _ in connect(uid) }
    }

    func group(_ guid: String, _ members: [String]) {
        groups.put(GroupRecord(guid: guid, name: "Group \(guid)", members: members))
    }

    func advance(seconds: Int64) {
        clock.advance(millis: seconds * 1000)
    }

    func advance(millis: Int64) {
        clock.advance(millis: millis)
    }

    /// Now in Unix seconds, as call timestamps carry it.
    var nowSeconds: Int64 {
        clock.nowMillis() / 1000
    }

    var nowMillis: Int64 {
        clock.nowMillis()
    }

    func call(
        _ receiver: String, from connection: ConnectionID, type: ReceiverType = .user,
        callType: CallType = .audio, timeout: Int? = nil, metadata: [String: JSONValue]? = nil
    ) -> CallOutcome {
        core.initiateCall(
            InitiateCallParams(
                receiverId: receiver, receiverType: type, callType: callType, timeout: timeout, metadata: metadata),
            from: connection)
    }

    func accept(_ sessionId: String, from connection: ConnectionID) -> CallOutcome {
        core.acceptCall(sessionId: sessionId, from: connection)
    }

    func reject(_ sessionId: String, _ status: RejectStatus, from connection: ConnectionID) -> CallOutcome {
        core.rejectCall(RejectCallParams(sessionId: sessionId, status: status), from: connection)
    }

    func end(_ sessionId: String, from connection: ConnectionID) -> CallOutcome {
        core.endCall(sessionId: sessionId, from: connection)
    }
}

extension CallOutcome {
    /// The call of a successful reply.
    var call: Call? {
        try? reply.get()
    }

    /// The error code of a failed reply.
    var errorCode: ErrorCode? {
        guard case .failure(let error) = reply else { return nil }
        return error.code
    }
}

/// Shorthand for an expected delivery.
func delivery(_ push: Push, _ connections: [ConnectionID]) -> Delivery {
    Delivery(push: push, connections: connections)
}

/// Checks the invariants every delivery list keeps: no empty delivery, no connection twice in one.
func expectWellFormed(_ deliveries: [Delivery], sourceLocation: SourceLocation = #_sourceLocation) {
    for item in deliveries {
        #expect(!item.connections.isEmpty, sourceLocation: sourceLocation)
        #expect(Set(item.connections).count == item.connections.count, sourceLocation: sourceLocation)
    }
}

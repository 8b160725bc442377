import CallGateProtocol

/// Values shared by the protocol tests.
enum Samples {
    static let alice = User(uid: "alice", name: "Alice", avatar: "https://img.example/a/alice.png")
    static let bob = User(uid: "bob", name: "Bob")
    static let team = Group(guid: "team", name: "Team", membersCount: 4)

    static let ringing = Call(
        sessionId: "v1.00ff",
        callType: .video,
        receiverType: .user,
        callStatus: .initiated,
        initiator: alice,
        receiver: .user(bob),
        initiatedAt: 1_700_000_000,
        callUUID: "0f8c8a5a-41c7-5a0e-9d5e-2b8f3b7d6c11",
        ringExpiresAt: 1_700_000_045
    )

    static let ended = Call(
        sessionId: "v1.00aa",
        callType: .audio,
        receiverType: .group,
        callStatus: .ended,
        initiator: alice,
        receiver: .group(team),
        initiatedAt: 1_700_000_000,
        joinedAt: 1_700_000_005,
        endedAt: 1_700_000_060,
        metadata: ["topic": .string("standup"), "n": .number(3)]
    )
}

import CallGateProtocol
import TestSupport

/// Random wire values whose text mixes everything JSON escapes with slashes, non-ASCII and
/// the characters Foundation might treat specially, and whose metadata keys collide in their
/// first bytes so key order matters.
struct RandomWireValues {
    var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    private static let alphabet: [String] = [
        "a", "Z", "_", "/", "\"", "\\", " ", "é", "e\u{301}", "\u{212B}", "Ð", "漢", "👩‍👩‍👧", "\u{2028}", "\u{2029}",
        "\u{7F}", "\u{FFFD}", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1B}", "\u{1F}", "<", "&",
    ]

    mutating func count(upTo limit: Int) -> Int {
        Int(generator.next() % UInt64(limit + 1))
    }

    mutating func flip() -> Bool {
        generator.next() & 1 == 1
    }

    mutating func text() -> String {
        (0..<count(upTo: 10)).map { _ in Self.alphabet[count(upTo: Self.alphabet.count - 1)] }.joined()
    }

    mutating func user() -> User {
        User(uid: text(), name: text(), avatar: flip() ? text() : nil)
    }

    mutating func participant() -> Participant {
        Participant(
            uid: text(), name: text(), avatar: flip() ? text() : nil, joinedAt: Int64.random(in: .min ... .max, using: &generator),
            audioMuted: flip(), videoMuted: flip())
    }

    mutating func number() -> Double {
        switch count(upTo: 3) {
        case 0: Double(Int64.random(in: -1_000_000...1_000_000, using: &generator))
        case 1: Double.random(in: -1e6...1e6, using: &generator)
        case 2: Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (flip() ? 1 : -1)
        default: Double(Int64.random(in: .min ... .max, using: &generator))
        }
    }

    mutating func value(depth: Int) -> JSONValue {
        switch count(upTo: depth >= 3 ? 3 : 5) {
        case 0: .null
        case 1: .bool(flip())
        case 2: .number(number())
        case 3: .string(text())
        case 4: .array((0..<count(upTo: 3)).map { _ in value(depth: depth + 1) })
        default: .object(object(depth: depth + 1))
        }
    }

    mutating func object(depth: Int) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for _ in 0..<count(upTo: 4) {
            fields["k" + text()] = value(depth: depth)
        }
        return fields
    }

    mutating func call() -> Call {
        let receiver: CallReceiver = flip()
            ? .user(user())
            : .group(Group(guid: text(), name: text(), icon: flip() ? text() : nil, membersCount: count(upTo: 1000)))
        return Call(
            sessionId: text(),
            callType: CallType.allCases[count(upTo: CallType.allCases.count - 1)],
            receiverType: flip() ? .user : .group,
            callCategory: flip() ? .call : .meet,
            callStatus: CallStatus.allCases[count(upTo: CallStatus.allCases.count - 1)],
            initiator: user(),
            receiver: receiver,
            initiatedAt: Int64.random(in: .min ... .max, using: &generator),
            joinedAt: flip() ? Int64.random(in: 0...2_000_000_000, using: &generator) : nil,
            endedAt: flip() ? Int64.random(in: 0...2_000_000_000, using: &generator) : nil,
            metadata: flip() ? object(depth: 1) : nil,
            callUUID: flip() ? text() : nil,
            ringExpiresAt: flip() ? Int64.random(in: .min ... .max, using: &generator) : nil)
    }
}

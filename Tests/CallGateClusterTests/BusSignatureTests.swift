import CallGateCluster
import Synchronization
import Testing

/// The seal on bus messages: what one node seals, another with the same secret opens on the
/// same channel, and nothing else: not another channel, not a changed byte, not another secret,
/// not an old message; a push opens with whatever epoch and seq Redis put in it.
struct BusSignatureTests {
    static let secret = Array("a-secret-of-at-least-thirty-two-bytes".utf8)
    static let other = Array("another-secret-of-thirty-two-bytes-or-more".utf8)
    /// The seal of the other tests' nodes and streams, on the wall clock.
    static let testSignature = BusSignature(secret: secret)!

    /// A clock the tests move, in Unix ms.
    final class Clock: Sendable {
        let millis = Atomic<Int64>(1_800_000_000_000)
        func advance(by milliseconds: Int64) { millis.add(milliseconds, ordering: .relaxed) }
        var now: @Sendable () -> Int64 { { self.millis.load(ordering: .relaxed) } }
    }

    static func signature(
        _ secret: [UInt8] = secret, previous: [UInt8]? = nil, previousUntil: Int64 = 0, clock: Clock
    ) throws -> BusSignature {
        try #require(BusSignature(secret: secret, previous: previous, previousUntil: previousUntil, now: clock.now))
    }

    @Test func aSealedMessageOpensOnItsChannelOnly() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        let message = ClusterMessage.departed(connection: 42).encoded
        let sealed = signature.seal(message, on: "cg:n:a")
        #expect(try Array(signature.open(sealed, on: "cg:n:a").get().message) == message)
        #expect(signature.open(sealed, on: "cg:n:b") == .failure(.forged), "moved to another node's channel")
        #expect(signature.open(message, on: "cg:n:a") == .failure(.unsigned))
        #expect(signature.open([], on: "cg:n:a") == .failure(.unsigned))
        #expect(signature.open(Array("S 1 zz\nD 1\n".utf8), on: "cg:n:a") == .failure(.unsigned), "not hex")
        #expect(signature.open(Array("S 99999999999999999999 \(String(repeating: "a", count: 64))\nD 1\n".utf8), on: "x")
            == .failure(.unsigned), "a stamp past Int64")
    }

    @Test func everyChangedByteIsRefused() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        let sealed = signature.seal(ClusterMessage.lookFor(from: "a", uid: "bob").encoded, on: "cg:n:b")
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(throws: (any Error).self, "byte \(index)") { try signature.open(changed, on: "cg:n:b").get() }
        }
    }

    @Test func anotherSecretIsRefusedAndSoIsAnOldOrFutureMessageButForKeptPushes() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        let stranger = try Self.signature(Self.other, clock: clock)
        let message = ClusterMessage.probe.encoded
        #expect(signature.open(stranger.seal(message, on: "c"), on: "c") == .failure(.forged))

        let sealed = signature.seal(message, on: "c")
        clock.advance(by: 30_000)
        #expect((try? signature.open(sealed, on: "c").get()) != nil, "30 s is still within the default window")
        clock.advance(by: 1)
        #expect(signature.open(sealed, on: "c") == .failure(.stale))
        #expect((try? signature.open(sealed, on: "c", maxAge: .seconds(60)).get()) != nil, "a push read back from a stream")
        #expect(signature.open(sealed, on: "c", maxAge: .seconds(30)) == .failure(.stale))
        clock.advance(by: -60_002)
        #expect(signature.open(sealed, on: "c") == .failure(.stale), "sealed 30.001 s ahead of this clock")
    }

    @Test func aPushOpensWithTheEpochAndSeqRedisPutInItAndNoOtherChange() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        let parts = ClusterMessage.pushParts(
            origin: "a", excluding: nil, event: "onIncomingCallReceived", sessionId: "s1", head: Array(#"{"event":"x""#.utf8))
        let sealed = signature.seal(push: parts, on: "cg:u:bob")
        for (epoch, seq) in [("e1", UInt64(1)), ("zz", 9_007_199_254_740_991)] {
            let published = sealed.beforeSeq + Array("\(epoch) \(seq)".utf8) + sealed.afterSeq
            let opened = try Array(signature.open(published, on: "cg:u:bob").get().message)
            guard case .push("a", nil, "onIncomingCallReceived", "s1", epoch, seq, _) = ClusterMessage(opened) else {
                Issue.record("not the push sealed: \(String(decoding: opened, as: UTF8.self))")
                continue
            }
        }
        let published = sealed.beforeSeq + Array("e1 1".utf8) + sealed.afterSeq
        #expect(signature.open(published, on: "cg:u:alice") == .failure(.forged), "another user's channel")
        let otherEvent = String(decoding: published, as: UTF8.self)
            .replacingOccurrences(of: "onIncomingCallReceived", with: "onIncomingCallCanceled")
        #expect(signature.open(Array(otherEvent.utf8), on: "cg:u:bob") == .failure(.forged))
    }

    @Test func whileRotatingBothSecretsSealAndOpenUntilTheOverlapEnds() throws {
        let clock = Clock()
        let until = clock.now() + 60_000
        let rotating = try Self.signature(Self.other, previous: Self.secret, previousUntil: until, clock: clock)
        let old = try Self.signature(Self.secret, clock: clock)
        let new = try Self.signature(Self.other, clock: clock)
        let message = ClusterMessage.probe.encoded

        #expect((try? old.open(rotating.seal(message, on: "c"), on: "c").get()) != nil, "a node still on the old secret")
        #expect((try? new.open(rotating.seal(message, on: "c"), on: "c").get()) != nil, "a node on the new one only")
        #expect((try? rotating.open(old.seal(message, on: "c"), on: "c").get()) != nil)
        #expect((try? rotating.open(new.seal(message, on: "c"), on: "c").get()) != nil)

        // A copy that carries only the old secret's MAC is the same message.
        let sealed = rotating.seal(message, on: "c")
        let line = String(decoding: sealed, as: UTF8.self).split(separator: "\n", maxSplits: 1)
        let fields = line[0].split(separator: " ")
        let oldOnly = Array("S \(fields[1]) \(fields[3])\n\(line[1])".utf8)
        #expect(try rotating.open(oldOnly, on: "c").get().digest == rotating.open(sealed, on: "c").get().digest)

        clock.advance(by: 60_000)
        #expect(rotating.open(old.seal(message, on: "c"), on: "c") == .failure(.forged), "the overlap is over")
        #expect(old.open(rotating.seal(message, on: "c"), on: "c") == .failure(.forged))
        #expect((try? new.open(rotating.seal(message, on: "c"), on: "c").get()) != nil)
    }

    @Test func aStampIsDigitsOnlyAndAMessagePastTheBoundIsNotOpened() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        let sealed = String(decoding: signature.seal(ClusterMessage.probe.encoded, on: "c"), as: UTF8.self)
        let stamp = String(clock.now())
        for other in ["+\(stamp)", "0\(stamp)", "-\(stamp)", " \(stamp)", "\(stamp)x"] {
            let changed = sealed.replacingOccurrences(of: "S \(stamp) ", with: "S \(other) ")
            #expect(signature.open(Array(changed.utf8), on: "c") == .failure(.unsigned), "\(other)")
        }
        let huge = signature.seal(Array(repeating: UInt8(ascii: "K"), count: BusSignature.maxMessageBytes), on: "c")
        #expect(signature.open(huge, on: "c") == .failure(.oversized))
    }

    @Test func everyCopyOfAMessageHasOneDigestAndIsHeardOnce() throws {
        let clock = Clock()
        let signature = try Self.signature(clock: clock)
        var seen = SeenSeals(maxAge: signature.maxAge)
        let parts = ClusterMessage.pushParts(origin: "a", excluding: nil, event: "e", sessionId: "s", head: [])
        let sealed = signature.seal(push: parts, on: "u")
        let first = try signature.open(sealed.beforeSeq + Array("e 1".utf8) + sealed.afterSeq, on: "u").get()
        let renumbered = try signature.open(sealed.beforeSeq + Array("e 2".utf8) + sealed.afterSeq, on: "u").get()
        #expect(first.digest == renumbered.digest, "a push under another seq is the same push")
        let heard = seen.insert(first, now: clock.now())
        let heardAgain = seen.insert(renumbered, now: clock.now())
        #expect(heard && !heardAgain)
        let other = try signature.open(signature.seal(push: parts, on: "u2").beforeSeq + Array("e 1".utf8) + sealed.afterSeq, on: "u2").get()
        let toAnother = seen.insert(other, now: clock.now())
        #expect(toAnother, "the same push to another user")
        #expect(seen.count == 2)

        clock.advance(by: 30_001)
        let later = try signature.open(signature.seal(ClusterMessage.probe.encoded, on: "c"), on: "c").get()
        let heardLater = seen.insert(later, now: clock.now())
        #expect(heardLater && seen.count == 1, "what is stale by now is forgotten")
    }

    @Test func aShortSecretIsRefused() {
        #expect(BusSignature(secret: Array(repeating: 1, count: 31)) == nil)
        #expect(BusSignature(secret: Self.secret, previous: Array(repeating: 1, count: 31)) == nil)
        #expect(BusSignature(secret: Array(repeating: 1, count: 32)) != nil)
    }
}

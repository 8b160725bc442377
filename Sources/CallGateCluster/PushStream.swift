/// Cluster mode: each user's push sequence and recent pushes, in Redis, so that a device
/// recovers what it missed on whichever node it reconnects to (the in-process store is
/// `InMemoryPushHistory`; this is the shared one).
///
/// A user's sequence (`ClusterKeys.pushSequence`: epoch and last seq) lives `sequenceLifetime`
/// after the last push or connect of theirs; their pushes (`ClusterKeys.pushes`, a stream whose
/// entry ids are the seqs) are kept for `window` after the last one, at most
/// `maxEntriesPerUser` of them. The owner of a call numbers, keeps and publishes each push to a
/// user in one script, so every node delivers a user's pushes in the order of their numbers, and
/// the same numbers on every device. Service thread only.
public final class PushStream {
    /// What a connecting device is told of its user's sequence.
    public struct Recall: Sendable {
        /// The sequence's epoch.
        public let epoch: String
        /// The last seq given in it (0 before any push).
        public let seq: UInt64
        /// For a device recovering in this epoch, every push after its seq, oldest first; nil
        /// when it did not ask, asked in another epoch or from a seq ahead of this one, or some
        /// of those pushes are no longer kept.
        public let missed: [ClusterMessage]?
    }

    /// How long a user's stream is kept after their last push.
    public let window: Duration
    /// The most pushes kept per user.
    public let maxEntriesPerUser: Int
    /// How long a user's sequence is kept after their last push or connect.
    public let sequenceLifetime: Duration
    private let client: RedisClient
    /// Seals each push for its user's channel; a kept push whose seal fails is not recovered.
    private let signature: BusSignature
    /// A kept push was dropped: its seal failed, or it did not parse (nil).
    public var onRejected: (BusSignature.Rejection?) -> Void = { _ in }

    public init(
        client: RedisClient, signature: BusSignature, window: Duration, maxEntriesPerUser: Int,
        sequenceLifetime: Duration = .seconds(86_400)
    ) {
        self.client = client
        self.signature = signature
        self.window = window
        self.maxEntriesPerUser = maxEntriesPerUser
        self.sequenceLifetime = sequenceLifetime
    }

    /// Numbers the push whose message is `parts` (see `ClusterMessage.pushParts`) as the next of
    /// `uid`, keeps it and publishes it on their channel; `done` gets its seq, or why it was not
    /// published.
    public func append(
        _ parts: (beforeSeq: [UInt8], afterSeq: [UInt8]), toUser uid: String,
        then done: @escaping (Result<UInt64, RedisFailure>) -> Void
    ) {
        let channel = ClusterKeys.userChannel(uid)
        let sealed = signature.seal(push: parts, on: channel)
        client.run(
            ClusterScripts.appendPush, keys: [ClusterKeys.pushSequence(of: uid), ClusterKeys.pushes(of: uid)],
            arguments: [
                Self.freshEpoch(), Self.millis(sequenceLifetime), Array(String(maxEntriesPerUser).utf8), Self.millis(window),
                Array(channel.utf8), sealed.beforeSeq, sealed.afterSeq,
            ]
        ) { result in
            done(result.flatMap { reply in
                guard case .integer(let seq) = reply, seq > 0 else { return .failure(.refused("append-push answered \(reply)")) }
                return .success(UInt64(seq))
            })
        }
    }

    /// Where `uid`'s sequence stands, begun if need be, and the pushes after `position` when a
    /// device recovers from there.
    public func read(
        _ uid: String, recovering position: (epoch: String, seq: UInt64)?,
        then done: @escaping (Result<Recall, RedisFailure>) -> Void
    ) {
        let from = position.flatMap { $0.seq < Self.maxSeq ? $0.seq + 1 : nil }
        client.run(
            ClusterScripts.readPushes, keys: [ClusterKeys.pushSequence(of: uid), ClusterKeys.pushes(of: uid)],
            arguments: [
                Self.freshEpoch(), Self.millis(sequenceLifetime), Array((position?.epoch ?? "").utf8),
                Array("\(from ?? 0)-0".utf8), Array(String(from == nil ? 0 : maxEntriesPerUser).utf8),
            ]
        ) { [maxEntriesPerUser, signature, window, weak self] result in
            done(result.flatMap { reply in
                guard let values = reply.elements, values.count >= 2, let epoch = values[0].text,
                      let seq = values[1].integer.flatMap(UInt64.init(exactly:)) else {
                    return .failure(.refused("read-pushes answered \(reply)"))
                }
                var missed: [ClusterMessage]?
                if let position, let from, position.epoch == epoch, position.seq <= seq, seq - position.seq <= maxEntriesPerUser {
                    // A kept push may be as old as the window (and the seals' bound, for clocks).
                    let oldest = window + signature.maxAge
                    let kept = values.dropFirst(2).compactMap { value -> ClusterMessage? in
                        guard case .bulk(let bytes) = value else { return nil }
                        switch signature.open(bytes, on: ClusterKeys.userChannel(uid), maxAge: oldest) {
                        case .success(let opened):
                            guard let push = ClusterMessage(Array(opened.message)) else {
                                self?.onRejected(nil)
                                return nil
                            }
                            return push
                        case .failure(let rejection):
                            self?.onRejected(rejection)
                            return nil
                        }
                    }
                    let numbers = kept.compactMap { message -> UInt64? in
                        if case .push(_, _, _, _, epoch, let seq, _) = message { seq } else { nil }
                    }
                    if numbers == Array(stride(from: from, through: seq, by: 1)) {
                        missed = kept
                    }
                }
                return .success(Recall(epoch: epoch, seq: seq, missed: missed))
            })
        }
    }

    /// Where the sequences of `uids` stand, each renewed for `sequenceLifetime`; a user Redis
    /// has no sequence of (it restarted empty, or the sequence lapsed) is left out, and none is
    /// begun. Read in batches of `readBatch` users; `done` runs once, when every batch is
    /// answered, with the first failure if any batch failed.
    public func sequences(
        of uids: [String], then done: @escaping (Result<[String: (epoch: String, seq: UInt64)], RedisFailure>) -> Void
    ) {
        var found: [String: (epoch: String, seq: UInt64)] = [:]
        var failure: RedisFailure?
        var unanswered = (uids.count + Self.readBatch - 1) / Self.readBatch
        guard unanswered > 0 else { return done(.success(found)) }
        for start in stride(from: 0, to: uids.count, by: Self.readBatch) {
            let batch = Array(uids[start..<min(uids.count, start + Self.readBatch)])
            client.run(
                ClusterScripts.readSequences, keys: batch.map { ClusterKeys.pushSequence(of: $0) },
                arguments: [Self.millis(sequenceLifetime)]
            ) { result in
                switch result {
                case .success(let reply):
                    if let values = reply.elements, values.count == 2 * batch.count {
                        for (index, uid) in batch.enumerated() {
                            guard let epoch = values[2 * index].text, !epoch.isEmpty,
                                  let seq = values[2 * index + 1].text.flatMap({ UInt64($0) }) else { continue }
                            found[uid] = (epoch, seq)
                        }
                    } else {
                        failure = failure ?? .refused("read-sequences answered \(reply)")
                    }
                case .failure(let error):
                    failure = failure ?? error
                }
                unanswered -= 1
                if unanswered == 0 {
                    done(failure.map { .failure($0) } ?? .success(found))
                }
            }
        }
    }

    /// The most users whose sequences one script reads.
    private static let readBatch = 200

    /// The largest seq a client may name (the protocol's `Seq` maximum).
    private static let maxSeq: UInt64 = 9_007_199_254_740_991

    private static func freshEpoch() -> [UInt8] {
        Array(String(UInt64.random(in: 0...UInt64.max), radix: 36).utf8)
    }

    private static func millis(_ duration: Duration) -> [UInt8] {
        Array(String(duration.microseconds / 1000).utf8)
    }
}

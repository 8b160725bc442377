import Logging

/// The busy claims of the users this node's calls engage, in Redis (`ClusterKeys.busy`): what
/// keeps one user out of two calls when the calls live on different nodes.
///
/// Before an op that may engage a user (`initiateCall` for its caller, `acceptCall` for the
/// accepter) the node claims them atomically (`claim`); a claim of another node refuses the op.
/// After every op the node writes each changed engagement as its Core has it (`hold`, `release`),
/// and every `renewInterval` it renews the claims of every user its calls engage, so that the
/// claims of a node that died lapse after `lease`. Each node also keeps the set of users it may
/// hold a claim of (`ClusterKeys.claimed`), so that its next run (or the same run, when Redis
/// comes back) releases at once the claims its Core does not engage (of calls that died with
/// the previous run before they were durable) instead of after the lease. Service thread only.
public final class BusyClaims {
    /// How the claims are timed.
    public struct Timing: Sendable {
        /// How long a claim lives unless renewed.
        public var lease: Duration = .seconds(30)
        /// How often the claims are renewed.
        public var renewInterval: Duration = .seconds(10)

        public init() {}
    }

    /// What a claim found.
    public enum Claim: Equatable, Sendable {
        /// The user is this node's to engage; of the users the op would ring, `answered` hold a
        /// claim in an answered call (`j`) of any node, `profiles` are the profiles (JSON) of
        /// those with a device on some node, and `devices` what each node's run wrote of their
        /// devices (`UserPresence`; runs that are no longer live included).
        case claimed(answered: Set<String>, profiles: [String: [UInt8]], devices: [String: [UserPresence.Entry]])
        /// Another node's call (or op) holds the user; nil when Redis answered something that
        /// is no claim.
        case held(BusyClaim?)
        /// The user started their calls per minute already, on the nodes together.
        case startsUsedUp
    }

    /// Most keys per renewal script.
    static let renewBatch = 500

    public let timing: Timing
    private let nodeID: String
    private let client: RedisClient
    private let logger: Logger

    public init(nodeID: String, client: RedisClient, timing: Timing = Timing(), logger: Logger) {
        self.nodeID = nodeID
        self.client = client
        self.timing = timing
        self.logger = logger
    }

    /// This node's claim of a user in call `sessionId`: `answered` (joined to an answered call)
    /// or not (the caller of a ringing one).
    public func claim(in sessionId: String, answered: Bool) -> BusyClaim {
        BusyClaim(node: nodeID, sessionId: sessionId, stage: answered ? .joined : .calling)
    }

    /// Claims `uid` for an op of this node that may engage them, and reads the claims of
    /// `ringing`, the users it would ring. `start`: the op starts a call, counted in `uid`'s
    /// starts of the last minute, and refused past its limit (`CallStarts`).
    public func claim(
        _ uid: String, ringing: [String] = [], start: CallStarts.Start? = nil,
        then done: @escaping (Result<Claim, RedisFailure>) -> Void
    ) {
        noteClaimed(uid)
        replace(uid, with: .pending(on: nodeID), replacingOwn: false, reading: ringing, start: start) { result in
            done(result.map { found in
                if found.startsUsedUp {
                    return .startsUsedUp
                }
                if let holder = found.holder {
                    return .held(BusyClaim(holder))
                }
                var answered = Set<String>()
                var profiles: [String: [UInt8]] = [:]
                var devices: [String: [UserPresence.Entry]] = [:]
                for (index, callee) in ringing.enumerated() {
                    if case .bulk(let bytes) = found.claims[index], BusyClaim(bytes)?.stage == .joined {
                        answered.insert(callee)
                    }
                    if case .bulk(let profile) = found.profiles[index] {
                        profiles[callee] = profile
                    }
                    let entries = UserPresence.entries(in: found.devices[index])
                    if !entries.isEmpty {
                        devices[callee] = entries
                    }
                }
                return .claimed(answered: answered, profiles: profiles, devices: devices)
            })
        }
    }

    /// Records that `uid` is engaged in this node's call `sessionId`.
    public func hold(_ uid: String, in sessionId: String, answered: Bool) {
        noteClaimed(uid)
        let claim = claim(in: sessionId, answered: answered)
        replace(uid, with: claim, replacingOwn: true, reading: []) { [logger] result in
            if case .success(let found) = result, let holder = found.holder {
                logger.error(
                    "a user engaged in a call here is claimed by another node",
                    metadata: ["uid": "\(uid)", "claim": "\(String(decoding: claim.bytes, as: UTF8.self))",
                               "holder": "\(String(decoding: holder, as: UTF8.self))"])
            }
        }
    }

    /// Releases this node's claim of `uid`, whichever call it is for: this node's Core engages
    /// them in none. Another node's claim stays.
    public func release(_ uid: String) {
        release([uid], heldBy: nodeID)
        client.send(["SREM", ClusterKeys.claimed(by: nodeID), uid]) { _ in }
    }

    /// Claims `uid`, engaged in call `sessionId` taken over from `node`, in place of that node's
    /// claim, in one step.
    public func adopt(_ uid: String, from node: String, in sessionId: String, answered: Bool) {
        noteClaimed(uid)
        let claim = claim(in: sessionId, answered: answered)
        client.run(
            ClusterScripts.adoptUser, keys: [ClusterKeys.busy(uid)],
            arguments: [
                Array("\(node)|".utf8), Array("\(nodeID)|".utf8), claim.bytes,
                Array(String(timing.lease.microseconds / 1000).utf8),
            ]
        ) { [logger] result in
            if (try? result.get().integer) == 0 {
                logger.error(
                    "a user of a call taken over is claimed by a third node",
                    metadata: ["uid": "\(uid)", "claim": "\(String(decoding: claim.bytes, as: UTF8.self))", "from": "\(node)"])
            }
        }
    }

    /// Releases the claims that node `node` holds of `uids`: its calls are this node's now.
    public func release(_ uids: [String], heldBy node: String) {
        for uid in uids {
            client.run(ClusterScripts.releaseUser, keys: [ClusterKeys.busy(uid)], arguments: [Array("\(node)|".utf8)]) { _ in }
        }
    }

    /// The users this node (this run or an earlier one) may hold a claim of
    /// (`ClusterKeys.claimed`); empty when Redis could not be read (their claims then lapse with
    /// their lease).
    public func claimedUsers(then done: @escaping ([String]) -> Void) {
        client.send(["SMEMBERS", ClusterKeys.claimed(by: nodeID)]) { result in
            done(((try? result.get())?.elements ?? []).compactMap(\.text))
        }
    }

    /// The claim on `uid` now, of any node (nil: none, or no claim Redis could read).
    public func holder(of uid: String, then done: @escaping (Result<BusyClaim?, RedisFailure>) -> Void) {
        client.send(["GET", ClusterKeys.busy(uid)]) { result in
            done(result.map { reply in
                guard case .bulk(let bytes) = reply else { return nil }
                return BusyClaim(bytes)
            })
        }
    }

    /// Adds `uid` to the users this node may hold a claim of, before the claim is written.
    private func noteClaimed(_ uid: String) {
        client.run(
            ClusterScripts.noteClaimed, keys: [ClusterKeys.claimed(by: nodeID)],
            arguments: [Array(uid.utf8), Array(String(timing.lease.microseconds / 1000).utf8)]
        ) { _ in }
    }

    /// Renews the claims of `engaged` (uid -> its claim), in batches, and the set of the users
    /// this node may hold a claim of.
    public func renew(_ engaged: [(uid: String, claim: BusyClaim)]) {
        client.send([
            "PEXPIRE", ClusterKeys.claimed(by: nodeID), String(timing.lease.microseconds / 1000),
        ]) { _ in }
        var start = 0
        while start < engaged.count {
            let batch = engaged[start..<min(engaged.count, start + Self.renewBatch)]
            client.run(
                ClusterScripts.renewUsers, keys: batch.map { ClusterKeys.busy($0.uid) },
                arguments: [Array(String(timing.lease.microseconds / 1000).utf8)] + batch.map(\.claim.bytes)
            ) { [logger] result in
                if case .failure(let failure) = result {
                    logger.warning("busy claims not renewed", metadata: ["count": "\(batch.count)", "error": "\(failure)"])
                }
            }
            start += Self.renewBatch
        }
    }

    /// What the claim script found: the other node's claim that holds the user (nil when the
    /// claim was made), and the claims, profiles and presence of the users read, in order.
    private struct Found {
        var startsUsedUp = false
        /// What Redis holds for the user, as it holds it.
        var holder: [UInt8]?
        var claims: [RedisReply] = []
        var profiles: [RedisReply] = []
        var devices: [RedisReply] = []
    }

    /// Sets the claim of `uid` to `claim` unless another node's claim holds them (or, unless
    /// `replacingOwn`, this node's), and reads the claims and profiles of `others`.
    private func replace(
        _ uid: String, with claim: BusyClaim, replacingOwn: Bool, reading others: [String], start: CallStarts.Start? = nil,
        then done: @escaping (Result<Found, RedisFailure>) -> Void
    ) {
        client.run(
            ClusterScripts.claimUser,
            keys: [ClusterKeys.busy(uid), ClusterKeys.starts(of: uid)] + others.map(ClusterKeys.busy)
                + others.map(ClusterKeys.profile) + others.map(ClusterKeys.presence(of:)),
            arguments: [
                Array("\(nodeID)|".utf8), claim.bytes, Array(String(timing.lease.microseconds / 1000).utf8),
                Array(String(others.count).utf8), Array((replacingOwn ? "1" : "0").utf8),
            ] + (start?.arguments ?? CallStarts.Start.none)
        ) { result in
            done(result.flatMap { reply in
                guard let elements = reply.elements, let status = elements.first?.integer else {
                    return .failure(.refused("the busy claim script answered \(reply)"))
                }
                if status == 2 {
                    return .success(Found(startsUsedUp: true))
                }
                if status == 0 {
                    return .success(Found(holder: Array((elements.dropFirst().first?.text ?? "").utf8)))
                }
                guard elements.count == 4, let claims = elements[1].elements, let profiles = elements[2].elements,
                      let devices = elements[3].elements, claims.count == others.count,
                      profiles.count == others.count, devices.count == others.count else {
                    return .failure(.refused("the busy claim script answered \(reply)"))
                }
                return .success(Found(claims: claims, profiles: profiles, devices: devices))
            })
        }
    }
}

import CallGateProtocol
import DequeModule

/// A device coming back on a new connection: it resumes the sessions its previous connection
/// had joined, whether that connection is gone (within `participantGracePeriod`) or still
/// registered (a socket that dropped without a close the server has not noticed yet). Service
/// thread only.
extension GatewayCore {
    /// Moves the sessions of `previous`, a connection of `uid`, to `connection`: still
    /// registered, it is unregistered (the server closes its socket, `Arrival.replaced`);
    /// departed, its remembered sessions are joined again where `uid` is still a participant,
    /// stopping their grace period. Nothing is pushed: to the others, the user never left.
    /// A `previous` of another user, or unknown, changes nothing.
    func resumeSessions(of previous: ConnectionID, of uid: String, on connection: ConnectionID, into arrival: inout Arrival) {
        if directory.user(of: previous)?.uid == uid {
            carryRingProgress(of: previous, uid: uid, to: connection)
            let ids = joinedSessions.removeValue(forKey: previous) ?? []
            for id in ids.sorted() {
                guard let session = sessions[id], session.detach(previous) != nil else { continue }
                attach(connection, of: uid, to: session, into: &arrival)
            }
            unregister(previous)
            arrival.replaced = previous
            return
        }
        guard let departed = departedDevices.take(previous, of: uid, now: monotonicNow) else { return }
        for id in departed.sessions {
            guard let session = sessions[id] else { continue }
            attach(connection, of: uid, to: session, into: &arrival)
        }
    }

    /// Joins `connection` to `session` as a device of `uid`, who must still be a participant,
    /// and stops their grace period there.
    private func attach(_ connection: ConnectionID, of uid: String, to session: LiveSession, into arrival: inout Arrival) {
        guard var member = session.members[uid], session.uid(joinedFrom: connection) == nil else { return }
        if let timer = member.graceTimer {
            timers.cancel(timer)
            member.graceTimer = nil
            session.update(member)
        }
        session.attach(connection, as: uid)
        joinedSessions[connection, default: []].insert(session.id)
        arrival.resumedSessions.append(session.snapshot)
    }
}

/// What `connect` tells the server about the device that connected.
public struct Arrival: Hashable, Sendable {
    /// The calls the device should show: ringing its user, or with its user in them.
    public var activeCalls: [Call]
    /// The sessions the device is a participant of again, taken over from its previous
    /// connection, as they stand now.
    public var resumedSessions: [Session] = []
    /// The previous connection, still registered, that this one replaced: the server closes it.
    public var replaced: ConnectionID?

    /// Makes an arrival.
    public init(activeCalls: [Call], resumedSessions: [Session] = [], replaced: ConnectionID? = nil) {
        self.activeCalls = activeCalls
        self.resumedSessions = resumedSessions
        self.replaced = replaced
    }
}

/// A device that went away from the sessions it had joined, remembered for
/// `participantGracePeriod` in case it comes back on a new connection.
struct DepartedDevice {
    /// Its user.
    let uid: String
    /// The sessions it had joined, in id order.
    var sessions: [String] = []
}

/// The departed devices still waited for. All wait the same period, so they expire in the
/// order they departed: each add and take drops the expired ones first, and no timer is needed.
struct DepartedDevices {
    private var devices: [ConnectionID: DepartedDevice] = [:]
    private var expiries: Deque<(connection: ConnectionID, until: Int64)> = []

    /// Remembers `device`, departed from `connection`, until monotonic ms `until`.
    mutating func add(_ connection: ConnectionID, _ device: DepartedDevice, until: Int64, now: Int64) {
        dropExpired(now: now)
        devices[connection] = device
        expiries.append((connection, until))
    }

    /// The device that departed from `connection`, if it was `uid`'s and is still waited for;
    /// it is forgotten then (a device comes back once).
    mutating func take(_ connection: ConnectionID, of uid: String, now: Int64) -> DepartedDevice? {
        dropExpired(now: now)
        guard let device = devices[connection], device.uid == uid else { return nil }
        devices[connection] = nil
        return device
    }

    private mutating func dropExpired(now: Int64) {
        while let first = expiries.first, first.until <= now {
            expiries.removeFirst()
            devices[first.connection] = nil
        }
    }
}

extension GatewayCore {
    /// Whether call `sessionId` still rings `uid`, for a device given a ring it missed: if not,
    /// the `onIncomingCallCanceled` that stands for what stopped it (answered or declined by
    /// another device, missed, or the call's end), or nothing when the call is forgotten.
    /// Service thread only.
    public func ring(of sessionId: String, for uid: String) -> RingStatus {
        if let live = calls[sessionId] {
            let reason: CancelReason
            switch live.state(of: uid) {
            case .ringing?: return .ringing
            case .joined?, .left?: reason = .answeredElsewhere
            case .declined?: reason = .rejectedElsewhere
            case .missed?: reason = .unanswered
            case nil: return .forgotten
            }
            return .stopped(.incomingCallCanceled(call: live.call, reason: reason))
        }
        guard let call = finishedCalls[sessionId] else { return .forgotten }
        return .stopped(.incomingCallCanceled(call: call, reason: CancelReason(stopping: call.callStatus) ?? .rejectedElsewhere))
    }
}

/// Where a ring stands for one user (see `GatewayCore.ring(of:for:)`).
public enum RingStatus: Hashable, Sendable {
    /// The call rings them still.
    case ringing
    /// It stopped; the push that tells so.
    case stopped(Push)
    /// The call is no longer known.
    case forgotten
}

/// Cluster mode: what the other nodes know of the users a new call would ring.
public struct CalleesElsewhere: Hashable, Sendable {
    /// Those in an answered call on another node.
    public var answered: Set<String>
    /// The profiles of those with a device on another node, as their tokens describe them.
    public var profiles: [String: User]
    /// How many devices of each callee are connected to any node, this one included; a callee
    /// not in it is counted on this node only.
    public var onlineDevices: [String: Int]

    /// Makes it.
    public init(answered: Set<String> = [], profiles: [String: User] = [:], onlineDevices: [String: Int] = [:]) {
        self.answered = answered
        self.profiles = profiles
        self.onlineDevices = onlineDevices
    }
}

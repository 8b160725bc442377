import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Missed calls in sync, on the service's side: the store counts them (`MissedCallStore`), the
/// writer reports the counts its transactions changed, `markCallsSeen` writes on `storeReads`,
/// and the Core tells the counts to every device of the user (`onMissedCallsChanged`). A device
/// on its way in is given its user's count in the `connect` result: read once every later change
/// reaches it, and raised to what this node told meanwhile. Service thread, but for the store
/// work on `storeReads`.
extension GatewayService {
    /// The store changed these users' counts (`urgent`: the user marked calls seen): the Core
    /// tells their devices; the devices on their way in get the newer counts.
    func missedCallsChanged(_ counts: [String: MissedCalls], urgent: Bool = false) {
        missedCallReads.heard(counts)
        let outcome = core.missedCallsChanged(counts, urgent: urgent)
        armCoreTimer(at: outcome.nextDeadline)
        output.deliver(outcome.deliveries, after: 0)
    }

    /// Marks the missed calls of the device's user seen (all, or up to the call `sessionId`),
    /// then answers the count after and, when it changed, tells every device of the user at
    /// once. `ERR_INVALID_SESSION_ID` for a malformed id, `ERR_CALL_NOT_FOUND` for a call not in
    /// the user's log, `ERR_STORE_UNAVAILABLE` when the store cannot take the write.
    func markCallsSeen(_ params: MarkCallsSeenParams, answering request: ReplyAddress) {
        guard let user = core.user(of: request.connection) else {
            output.fail(request, code: .userNotLoggedIn, message: "send connect first")
            return
        }
        if let sessionId = params.sessionId, !SessionIDFormat.isValid(sessionId) {
            output.fail(request, code: .invalidSessionID, message: "sessionId must be 1 to \(SessionIDFormat.maxLength) characters of A-Z a-z 0-9 . _ : -")
            return
        }
        let store = store
        let now = clock.nowMillis()
        storeReads.async { [self, logger] in
            let marked: Result<SeenMark?, any Error> = Result {
                try store.markCallsSeen(of: user.uid, through: params.sessionId, at: now)
            }
            context.post { [self] in
                switch marked {
                case .success(let mark?):
                    output.succeed(request, with: mark.count)
                    if mark.marked > 0 {
                        missedCallsChanged([user.uid: mark.count], urgent: true)
                    }
                case .success(nil):
                    output.fail(request, code: .callNotFound, message: "no call with session id '\(params.sessionId ?? "")' in your call log")
                case .failure(let error):
                    logger.warning("missed calls could not be marked seen", metadata: ["uid": "\(user.uid)", "error": "\(error)"])
                    output.fail(request, code: .storeUnavailable, message: "the call log store cannot take the change now; try again shortly")
                }
            }
        }
    }

    /// Reads `uid`'s missed-call count on `storeReads`, then gives `done`, on the service
    /// thread, the newer of it and what this node told since the read began; when the store
    /// could not be read, or not within `missedCallsReadTimeout` (a connect never waits on a
    /// slow store), what this node told lately, else nil. A read that answers late is told to
    /// the user's devices, the new one included, as any change (the Core tells it only when it
    /// is newer than what it told).
    func readMissedCalls(of uid: String, then done: @escaping (MissedCalls?) -> Void) {
        missedCallReads.began(uid)
        let store = store
        let waiting = ServiceThreadBox(MissedCallRead(done))
        storeReads.async { [self, logger] in
            let read = Result { try store.missedCalls(of: uid) }
            context.post { [self] in
                if case .failure(let error) = read {
                    logger.warning("missed calls could not be read at connect", metadata: ["uid": "\(uid)", "error": "\(error)"])
                }
                let heard = missedCallReads.ended(uid)
                guard let newest = [try? read.get(), heard, core.missedCalls(of: uid)].compactMap(\.self)
                    .max(by: { $0.revision < $1.revision })
                else {
                    waiting.value.finish(with: nil)
                    return
                }
                if !waiting.value.finish(with: newest) {
                    missedCallsChanged([uid: newest])
                }
            }
        }
        let timeout = Self.missedCallsReadTimeout
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.wholeMilliseconds))) { [self] in
            context.post { [self] in
                waiting.value.finish(with: core.missedCalls(of: uid))
            }
        }
    }

    /// How long a connect waits for its user's missed-call count.
    static let missedCallsReadTimeout: Duration = .milliseconds(500)
}

/// A connect waiting for its user's missed-call count: answered once, by the read or by the
/// timeout, whichever comes first. Service thread only.
final class MissedCallRead {
    private var done: ((MissedCalls?) -> Void)?

    init(_ done: @escaping (MissedCalls?) -> Void) {
        self.done = done
    }

    /// Answers with `count` unless answered already; says whether it did.
    @discardableResult
    func finish(with count: MissedCalls?) -> Bool {
        guard let done else { return false }
        self.done = nil
        done(count)
        return true
    }
}

/// The missed-call counts read for devices on their way in: per user, how many reads run and
/// the newest count this node heard of meanwhile, which a read that began before it may miss.
/// Service thread only.
struct MissedCallReads {
    private var reads: [String: (running: Int, heard: MissedCalls?)] = [:]

    /// A read of `uid`'s count began.
    mutating func began(_ uid: String) {
        reads[uid, default: (0, nil)].running += 1
    }

    /// This node heard of these counts: the reads under way keep the newest.
    mutating func heard(_ counts: [String: MissedCalls]) {
        guard !reads.isEmpty else { return }
        for (uid, count) in counts where reads[uid] != nil {
            if (reads[uid]?.heard?.revision ?? -1) < count.revision {
                reads[uid]?.heard = count
            }
        }
    }

    /// A read of `uid`'s count ended: the newest count heard while reads of uid ran.
    mutating func ended(_ uid: String) -> MissedCalls? {
        guard let read = reads[uid] else { return nil }
        if read.running > 1 {
            reads[uid]?.running -= 1
        } else {
            reads[uid] = nil
        }
        return read.heard
    }
}

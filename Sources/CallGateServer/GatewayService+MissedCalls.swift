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

    /// Reads `uid`'s missed-call count off the service thread, then gives `done`, on the service
    /// thread, the newer of it and what this node told since the read began; when the store
    /// could not be read, or not within `missedCallsReadTimeout` (a connect never waits on a
    /// slow store), what this node told lately, else nil. A read that answers late is told to
    /// the user's devices, the new one included, as any change (the Core tells it only when it
    /// is newer than what it told). One read runs at a time and takes every count asked for
    /// since the last began: a reconnect storm costs a read per batch, not one per device.
    func readMissedCalls(of uid: String, then done: @escaping (MissedCalls?) -> Void) {
        let deadline = clock.monotonicMillis() + Self.missedCallsReadTimeout.wholeMilliseconds
        if let first = missedCallReads.ask(MissedCallRead(uid: uid, deadline: deadline, done)) {
            missedCallReads.timer.schedule(afterMicroseconds: max(0, first - clock.monotonicMillis()) * 1000)
        }
        readNextMissedCalls()
    }

    /// Starts the next batch of missed-call reads, unless one runs or none is asked for.
    private func readNextMissedCalls() {
        guard let batch = missedCallReads.nextBatch() else { return }
        let store = store
        let uids = Set(batch.map(\.uid))
        let asked = ServiceThreadBox(batch)
        storeReads.async { [self, logger] in
            let read = Result { try store.missedCalls(of: uids) }
            context.post { [self] in
                if case .failure(let error) = read {
                    logger.warning("missed calls could not be read at connect", metadata: ["users": "\(uids.count)", "error": "\(error)"])
                }
                let counts = (try? read.get()) ?? [:]
                for waiting in asked.value {
                    let heard = missedCallReads.ended(waiting.uid)
                    guard let newest = [counts[waiting.uid], heard, core.missedCalls(of: waiting.uid)].compactMap(\.self)
                        .max(by: { $0.revision < $1.revision })
                    else {
                        waiting.finish(with: nil)
                        continue
                    }
                    if !waiting.finish(with: newest) {
                        missedCallsChanged([waiting.uid: newest])
                    }
                }
                missedCallReads.batchEnded()
                readNextMissedCalls()
            }
        }
    }

    /// The earliest reads waiting for a count passed `missedCallsReadTimeout`: each connect goes
    /// on with what this node told lately (its read, answering later, is told as a change).
    func missedCallReadsTimedOut() {
        let now = clock.monotonicMillis()
        let (late, next) = missedCallReads.expire(at: now)
        for waiting in late {
            waiting.finish(with: core.missedCalls(of: waiting.uid))
        }
        if let next {
            missedCallReads.timer.schedule(afterMicroseconds: max(0, next - now) * 1000)
        }
    }

    /// How long a connect waits for its user's missed-call count.
    static let missedCallsReadTimeout: Duration = .milliseconds(500)
}

/// When a quiet socket is pinged and when it counts as dead, for one liveness interval `L`.
///
/// Every socket is visited once per visit period `P = L/8`. A visit pings a socket that has
/// sent nothing (no message, no pong) for `L/2`, once, and drops one that has been quiet for
/// `L - P`; since visits come every `P`, a dead peer is dropped before it has been quiet for
/// `L`, and a live one has at least `L/4` to answer its ping. A socket whose close was asked
/// for more than `P` ago (its peer does not read, so the close frame cannot go out) is dropped
/// as well. Pure arithmetic, no clock.
struct LivenessPolicy: Equatable {
    let intervalMillis: Int64

    init(intervalMillis: Int64) {
        precondition(intervalMillis >= 8, "a liveness interval under 8 ms cannot be swept")
        self.intervalMillis = intervalMillis
    }

    /// How often each socket is visited.
    var visitPeriodMillis: Int64 { intervalMillis / 8 }
    /// Quiet time after which a socket is pinged.
    var pingAfterMillis: Int64 { intervalMillis / 2 }
    /// Quiet time after which a socket is dropped.
    var dropAfterMillis: Int64 { intervalMillis - visitPeriodMillis }

    /// The verdict for a socket quiet for `idleMillis`, pinged already or not, and closing for
    /// `closingForMillis` (nil: not closing).
    func verdict(idleMillis: Int64, pinged: Bool, closingForMillis: Int64?) -> LivenessVerdict {
        if let closingForMillis {
            return closingForMillis >= visitPeriodMillis ? .drop : .keep
        }
        if idleMillis >= dropAfterMillis { return .drop }
        if idleMillis >= pingAfterMillis && !pinged { return .ping }
        return .keep
    }
}

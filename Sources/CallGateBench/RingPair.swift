/// One caller and one callee who ring each other, one call at a time. Service thread.
struct RingPair {
    /// Where the pair's current call stands.
    enum Stage {
        /// No call: may ring.
        case idle
        /// `initiateCall` sent; the callee has not been rung yet.
        case ringing
        /// The callee sent `acceptCall`; waiting for the caller to hear it.
        case accepting
        /// The caller sent `endCall`; waiting for its reply and the callee's push.
        case ending
        /// Something failed: the caller sent `endCall` to clear the call; waiting for its reply.
        case aborting
    }

    var stage = Stage.idle
    /// The current call's session id, once known (from the reply or the callee's push).
    var sessionId: [UInt8] = []
    /// The session id of a call given up on, whose late pushes are ignored.
    var retiredSessionId: [UInt8] = []
    var initiateSentAt: UInt64 = 0
    var acceptSentAt: UInt64 = 0
    var endSentAt: UInt64 = 0
    var gotEndReply = false
    var gotEndedPush = false
    /// The initiate frame of this pair, built on first use and sent for every call.
    var initiateFrame: [UInt8] = []

    /// Whether `fields` is about this pair's current call (adopting its id if none is known yet).
    mutating func owns(_ fields: FrameFields) -> Bool {
        let id = fields.sessionIdBytes
        if !retiredSessionId.isEmpty, id.elementsEqual(retiredSessionId) { return false }
        if sessionId.isEmpty {
            sessionId = Array(id)
            return true
        }
        return id.elementsEqual(sessionId)
    }
}

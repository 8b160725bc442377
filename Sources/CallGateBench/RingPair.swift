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
    /// The call it is in, by session id.
    var call = CallIdentity()
    var initiateSentAt: UInt64 = 0
    var acceptSentAt: UInt64 = 0
    var endSentAt: UInt64 = 0
    var gotEndReply = false
    var gotEndedPush = false
    /// The initiate frame of this pair, built on first use and sent for every call.
    var initiateFrame: [UInt8] = []
}

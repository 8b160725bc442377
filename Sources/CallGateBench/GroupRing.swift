/// One group and its current ring: the caller (the group's first member) rings the others and
/// cancels once all of them got it. Service thread.
struct GroupRing {
    /// Where the current ring stands.
    enum Stage {
        /// No ring: may ring.
        case idle
        /// `initiateCall` sent; members are being reached.
        case ringing
        /// Every member got it; the caller sent `rejectCall` cancelled and waits for the reply
        /// and every member's `onIncomingCallCanceled`.
        case cancelling
    }

    var stage = Stage.idle
    /// The call it is in, by session id.
    var call = CallIdentity()
    var initiateSentAt: UInt64 = 0
    /// Members that got `onIncomingCallReceived` for the current ring.
    var delivered = 0
    /// Members that got `onIncomingCallCanceled` for it.
    var cancelled = 0
    var gotCancelReply = false
    /// The group's initiate frame, built on first use and sent for every ring.
    var initiateFrame: [UInt8] = []
}

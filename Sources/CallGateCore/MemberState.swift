/// Where one user stands in one call.
enum MemberState: Hashable {
    /// Their devices ring.
    case ringing
    /// They take part: the caller from the start, a callee once they accepted.
    case joined
    /// They declined (rejected or busy).
    case declined
    /// They were still ringing when the ring timeout passed, while the group call went on.
    case missed
    /// They left an answered group call that went on without them.
    case left
}

/// Who a call rings: one user or a group.
///
/// On the wire it is the bare User or Group object; a decoder tells them apart by the `guid` key
/// that only groups have.
public enum CallReceiver: Hashable, Sendable {
    /// A 1:1 call to this user.
    case user(User)
    /// A group call to this group.
    case group(Group)
}

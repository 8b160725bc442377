/// Which call a driver's unit (a ring pair, a group) is in, by session id, so that late frames
/// of a call it gave up on are not taken for the current one. Service thread of the bench loop.
struct CallIdentity {
    /// The current call's session id, once known (from the reply or the first push).
    var current: [UInt8] = []
    /// The session id of a call given up on, whose late frames are ignored.
    private(set) var retired: [UInt8] = []

    /// Whether `fields` is about the current call (adopting its id if none is known yet).
    mutating func owns(_ fields: FrameFields) -> Bool {
        let id = fields.sessionIdBytes
        if !retired.isEmpty, id.elementsEqual(retired) { return false }
        if current.isEmpty {
            current = Array(id)
            return true
        }
        return id.elementsEqual(current)
    }

    /// The current call is over: its late frames are ignored from now on.
    mutating func retire() {
        retired = current
    }
}

import CallGateCore
import CallGateProtocol
import LWS

/// What differs between one process and a cluster of them, behind one protocol, so that the
/// service above never asks which it is: where an op runs (routing to its call's owner), how a
/// push reaches a user's devices and how a device recalls what it missed (publishing), where a
/// user's devices are (presence), busy claims, and the limits counted on the nodes together.
///
/// `LocalFabric` keeps it all in this process (the push history in memory); `ClusterFabric`
/// keeps it in Redis and the shared database (owners, forwards, push streams, claims, takeover).
/// `FabricConformanceTests` runs one suite against both. Service thread only.
protocol Fabric: AnyObject {
    /// Called once by the service it serves, at the end of its `init`.
    func attach(to service: GatewayService)
    /// The process stops: other nodes need not wait for this one's lease to lapse. Returns
    /// within a second. Any thread but the service thread.
    func leave()

    // MARK: Readiness

    /// Why this node takes no sockets and runs no ops on calls now, nil when it does.
    func unreadiness() -> String?
    /// Whether this node may run its calls now: fire their timers, take ops on them.
    func mayRunCalls() -> Bool

    // MARK: Devices

    /// The devices of `uid` whose sockets this node holds, oldest first.
    func devices(of uid: String) -> [ConnectionID]
    /// How many devices of `uid` passed `connect`'s checks and are still on their way in.
    func arriving(_ uid: String) -> Int
    /// `connection` passed `connect`'s token check and the device cap here: it takes its place
    /// among its user's devices (the cap counted on every node, its user's pushes, what it
    /// missed), then the service admits it (`GatewayService.admit`), or it is refused.
    func arrive(_ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?, answering request: ReplyAddress)
    /// The service answered `connect` for `connection` at `position` of its user's pushes and
    /// replayed what it missed (after write `barrier`): it now follows its user's pushes.
    /// `previous` is the connection it took over, if any.
    func admitted(_ connection: ClientConnection, recall: Recall, previous: ConnectionID?, after barrier: UInt64)
    /// `connection` is gone from this node (closed, or replaced by a newer one of its device),
    /// before the Core forgets it.
    func departed(_ connection: ClientConnection)
    /// The Core forgot a device of `uid` that closed here.
    func left(_ uid: String)

    // MARK: Ops

    /// Runs `local` when the call or session `sessionId` is this node's to answer, else sends
    /// `bytes`, the op as `connection` sent it, to the node that owns the call. `claiming`: a
    /// `joinSession`, which makes a session nobody owns this node's.
    func route(
        _ sessionId: String, claiming: Bool, bytes: [UInt8], from connection: ClientConnection,
        answering request: ReplyAddress, local: @escaping () -> Void)
    /// Runs `op` once the user of `request` may engage in a call (no call of another node holds
    /// them), or refuses the request.
    func claimingUser(of request: ReplyAddress, then op: @escaping () -> Void)
    /// `claimingUser` for the accept of a call that allows call waiting: when another node's
    /// answered call holds the user, that node first puts it on hold for them
    /// (`CallCommand.holdAway`), then the user is claimed again.
    func claimingWaitingUser(of request: ReplyAddress, then op: @escaping () -> Void)
    /// Runs `op` with what is known elsewhere of `invitees` (whether an answered call of another
    /// node holds them, their profiles and devices) once the user of `request` may engage in a
    /// call, for `inviteToCall`; or refuses the request.
    func inviting(_ invitees: [String], of request: ReplyAddress, then op: @escaping (CalleesElsewhere) -> Void)
    /// Starts a call for the user of `request`: once they may engage in it and have a call
    /// start left this minute, `initiate` runs with what is known of the `ringing` users
    /// elsewhere, the call is recorded as this node's, and `send` carries the outcome out; or
    /// the request is refused.
    func startingCall(
        of request: ReplyAddress, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void)
    /// The users an `initiateCall` with `params` from `caller` rings whose state other nodes
    /// may hold, for `claimingUser`; `anyGroup`: the backend rings a group the caller need not
    /// be a member of.
    func callees(of params: InitiateCallParams, from caller: String, anyGroup: Bool) -> [String]
    /// Runs `join` when device `connection` of `uid` starts or joins session `sessionId` from a
    /// call token: a new meeting is a call start, counted on the nodes together. `join` returns
    /// whether it joined.
    func joining(
        _ sessionId: String, as uid: String, from connection: ConnectionID, answering request: ReplyAddress,
        join: @escaping () -> Bool)

    // MARK: The app's backend

    /// Starts a call the app's backend rings on behalf of `initiator`: once no call of another
    /// node holds them, `initiate` runs with what is known of the `ringing` users elsewhere, the
    /// call is recorded as this node's, and `send` carries the outcome out; or `refused` gets
    /// the response that says why not.
    func startingServerCall(
        by initiator: String, ringing: [String], initiate: @escaping (CalleesElsewhere) -> Outcome<Call>,
        then send: @escaping (Outcome<Call>) -> Void, refused: @escaping (HTTPResponse) -> Void)
    /// Runs `local` when this node owns the call `command` acts on (or nobody does), else has
    /// the node that owns it run `command` and answers `exchange` with its response.
    func route(_ command: CallCommand, for exchange: ServiceThreadBox<HTTPExchange>, local: @escaping () -> Void)
    /// Where `uid` stands on every node: their connected devices and the call they take part
    /// in; nil when that cannot be read now.
    func presence(of uid: String, then done: @escaping (UserPresenceBody?) -> Void)

    // MARK: Outcomes

    /// Publishes `frame`, the push of `delivery`, for every device of its users, after write
    /// `barrier`: numbered per user, kept for devices that reconnect, and handed to each device.
    /// Returns whether it went to a device of this node (one process), or was handed on to
    /// reach them on every node (cluster).
    func publish(_ delivery: Delivery, _ frame: HistoryFrame, after barrier: UInt64) -> Bool
    /// An outcome's changes went to the writer as write `barrier`: what other nodes read of
    /// them (busy claims, active calls) is written.
    func persisted<Reply>(_ outcome: Outcome<Reply>, after barrier: UInt64)
    /// Group changes went to the writer as write `barrier`: the other nodes hear of them.
    func groupsWritten(_ writes: [StoreWrite], after barrier: UInt64)
    /// Carries out output for other nodes (`HeldOutput.publish`, `.index`, `.groupChanged`,
    /// `.answer`) once it may go.
    func perform(_ output: HeldOutput)
    /// The answer to an op another node forwarded waits for the store.
    func answerHeld(_ forward: ForwardTicket)
    /// The store fenced out this node's writes of the calls of `sessions`: another node runs
    /// them now.
    func letGo(fencedOut sessions: Set<String>)
    /// The webhook endpoints changed through this node's admin API.
    func webhooksChanged()
}

/// What a connecting device is told of its user's push sequence.
struct Recall {
    /// Where the sequence stands.
    let position: HistoryPosition
    /// The pushes after the device's position, nil when not all of them can be given.
    let missed: [HistoryEntry]?
    /// Cluster mode: the pushes after `position` that came while the device was on its way in,
    /// offered to it after the replay.
    var arrived: [HistoryEntry] = []
}

import CallGateCluster
import CallGateCore
import CallGateProtocol
import DequeModule
import Foundation
import LWS
import Logging

/// The fabric of a cluster: calls have owners, ops go to them, pushes follow the user through
/// Redis, devices are counted and announced across nodes, users are claimed busy on the nodes
/// together, and a node that lapses has its calls taken over. Its parts are the extensions:
/// `+Membership` (joining, re-registering, reconciling), `+Routing` (ops to their call's owner),
/// `+Presence` (where each user's devices are), `+Pushes` (pushes through Redis, numbered per
/// user), `+SequenceChecks` (devices that missed pushes with none after), `+Busy`, `+ActiveCalls`, `+Groups`, `+Fencing` and `+Takeover`; `+Arrival` is a
/// device's way in. It reaches the service it serves (the Core, the hub, the outcome path) through
/// `service`. Service thread, but for `join` and `leave`: all state is confined to the
/// service thread, as the service's is (work done elsewhere comes back through
/// `context.post`). Hence `@unchecked Sendable`.
final class ClusterFabric: Fabric, @unchecked Sendable {
    /// This node's place in the cluster: its membership, bus and Redis structures.
    let cluster: ClusterNode
    /// The service this fabric serves; set by `attach`.
    unowned var service: GatewayService!
    /// Devices of other nodes that forwarded ops on calls this node owns or were announced to
    /// it, with the node that holds each; the Core runs them as devices until they depart or
    /// their lease lapses (`+Presence`).
    var remoteDevices = RemoteDevices()
    /// Departures that did not reach the node that ran the device yet (`+Presence`).
    var departures: Set<Departure> = []
    /// Users whose presence Redis did not take, written again once it is back (`+Presence`).
    var unwrittenPresence: Set<String> = []
    /// The ops this node forwarded to the owners of their calls, waiting for the answers
    /// (`+Routing`).
    var forwards = ForwardedRequests()
    /// The live nodes as the last heartbeat saw them (`+Routing`).
    var liveNodes: Set<String> = []
    /// The lapsed nodes whose takeover this node is trying or doing (`+Takeover`).
    var takeovers: Set<String> = []
    /// Group -> the latest of its reads under way (`+Groups`).
    var groupReloads: [String: Int] = [:]
    /// The devices on their way in, and the pushes that came for them meanwhile (`+Arrival`).
    var arrivals: Arrivals
    /// Pushes Redis could not be reached for, in order, sent once it is back (`+Pushes`); at
    /// most `maxHeldOutput`, the oldest dropped first.
    var unsentPushes = Deque<(uid: String, push: ClusterPush)>()
    /// Users with a busy claim on its way to Redis, and how many (`+Busy`).
    var claimsInFlight: [String: Int] = [:]
    /// Users whose sequence is to be checked, and devices found behind it (`+SequenceChecks`).
    var sequenceChecks = SequenceChecks()
    /// Where this node stands with the cluster: its subscription, suspensions, reconciling.
    var standing = Standing()
    /// The fabric's periodic and retry timers.
    lazy var timers = ClusterTimers(context: context, fabric: self)

    /// A fabric over `node`, made before the context starts.
    init(node: ClusterNode, maxHeldPushes: Int) {
        cluster = node
        arrivals = Arrivals(pushes: ArrivingPushes(maxHeld: maxHeldPushes))
    }

    func attach(to service: GatewayService) {
        self.service = service
    }

    /// Where a node stands with the cluster, as its membership and bus told it.
    struct Standing {
        /// Since when (the Core's monotonic ms) this node's subscription is up; nil while down.
        var busHeardSince: Int64?
        /// Whether the bus went down since it was last subscribed (`+Groups`).
        var busWasDown = false
        /// Whether the node was suspended since it last checked its calls (`+Membership`).
        var wasSuspended = false
        /// Whether the node is asking the database which of its calls survivors took over
        /// while it was cut off (`+Membership`); its Core timers wait meanwhile.
        var reconciling = false
        /// Whether its Redis state waits to be written again after `reconcile`.
        var registerPending = false
    }

    /// The devices of this node on their way in (`+Arrival`).
    struct Arrivals {
        /// uid -> how many of their devices passed `connect`'s checks and wait for their
        /// subscription and the calls of other nodes.
        var counts: [String: Int] = [:]
        /// The pushes that came while a device of their user was on its way in.
        var pushes: ArrivingPushes
    }

    // MARK: The service's parts, as this fabric uses them

    var core: GatewayCore { service.core }
    var hub: ConnectionHub { service.hub }
    var output: OutcomePath { service.output }
    var pipeline: StorePipeline { service.pipeline }
    var metrics: GatewayMetrics { service.metrics }
    var logger: Logger { service.logger }
    var configuration: ServerConfiguration { service.configuration }
    var context: LWSContext { service.context }
    var clock: any CoreClock { service.clock }
    var store: any CallLogStore { service.store }
    var storeReads: StoreReads { service.storeReads }
    var groups: JournaledGroupStore { service.groups }

    /// Carries out an outcome of the Core (a timer's, a departure's, a takeover's).
    func send(_ outcome: Outcome<Void>) {
        service.send(outcome)
    }

    // MARK: Outcomes

    /// Writes the busy claims of the users whose engagement the outcome changed, and the
    /// active-call entries of the users it touched once write `barrier` is durable.
    func persisted<Reply>(_ outcome: Outcome<Reply>, after barrier: UInt64) {
        writeClaims(of: outcome.engagements)
        indexActiveCalls(of: outcome, after: barrier)
    }

    /// Announces each changed group to the other nodes once its change is durable.
    func groupsWritten(_ writes: [StoreWrite], after barrier: UInt64) {
        for write in writes {
            switch write {
            case .putGroup(let group): output.emit(.groupChanged(group.guid), after: barrier)
            case .deleteGroup(let guid): output.emit(.groupChanged(guid), after: barrier)
            case .call, .webhook: break
            }
        }
    }

    /// Sends output for Redis and the other nodes, once the outcome path lets it go.
    func perform(_ output: HeldOutput) {
        switch output {
        case .publish(let uid, let push):
            publish(push, to: uid)
        case .index(let uid, let calls):
            cluster.activeCalls.write(uid, calls: calls)
        case .groupChanged(let guid):
            cluster.bus.announceGroupChange(guid)
        case .answer(let forward, _, let frame):
            cluster.bus.send(.answer(ticket: forward.number, frame: frame), toNode: forward.node) { [logger] result in
                if case .failure(let failure) = result {
                    logger.warning("answer to a forwarded op lost", metadata: ["node": "\(forward.node)", "error": "\(failure)"])
                }
            }
        case .commandAnswer(let forward, let response):
            sendCommandAnswer(response, to: forward)
        case .frame, .close, .http, .ringHandedOver, .answered:
            break  // the outcome path and the service perform these
        }
    }

    func answerHeld(_ forward: ForwardTicket) {
        tellHeld(forward)
    }

    /// Tells the other nodes to read the webhook endpoints again.
    func webhooksChanged() {
        cluster.bus.announceWebhooksChange()
    }
}

import CallGateCore

/// Cluster mode: the devices of other nodes that this node runs as devices of its own (they sent
/// ops on its calls, or their node announced them), each under a lease that its node renews
/// (`ClusterMessage.renew`, every `renewInterval`, one message per node for all of them).
///
/// A device stays until its node says it departed, its node leaves the cluster, or its lease
/// lapses: a departure that was lost (the bus was down, a subscription dropped it) ends within
/// `lease`, so a user who left is not counted present for ever. A lease is judged by when this
/// node last heard its own channel (renewals come on it, in order): one renewed less than
/// `lease` before that has not lapsed, however long ago that was, so a subscription that stalls
/// or a service thread that falls behind lapses nothing. Nor does a subscription that has not
/// been up for a whole `lease`. Times are the Core's monotonic milliseconds. Service thread only.
struct RemoteDevices {
    /// How often a node renews the leases of its devices that other nodes run.
    static let renewInterval: Duration = .seconds(1)
    /// How long a device's lease lasts without a renewal.
    static let lease: Duration = .seconds(4)

    private struct Device {
        let node: String
        var renewedAt: Int64
    }

    private var devices: [ConnectionID: Device] = [:]

    /// Whether no device of another node is run here.
    var isEmpty: Bool { devices.isEmpty }

    /// The node that holds device `id`; nil when it is not run here.
    subscript(id: ConnectionID) -> String? {
        devices[id]?.node
    }

    /// Runs device `id` of `node` here, its lease starting `now`.
    mutating func admit(_ id: ConnectionID, of node: String, now: Int64) {
        devices[id] = Device(node: node, renewedAt: now)
    }

    /// Renews, as of `now`, the leases of those of `ids` that `node` holds; returns those not
    /// run here (their node should announce them again).
    mutating func renew(_ ids: [ConnectionID], from node: String, now: Int64) -> [ConnectionID] {
        var unknown: [ConnectionID] = []
        for id in ids {
            if devices[id]?.node == node {
                devices[id]?.renewedAt = now
            } else if devices[id] == nil {
                unknown.append(id)
            }
        }
        return unknown
    }

    /// Stops running device `id`; returns whether it was run here.
    mutating func remove(_ id: ConnectionID) -> Bool {
        devices.removeValue(forKey: id) != nil
    }

    /// Stops running the devices of `nodes`, and returns them.
    mutating func remove(heldBy nodes: Set<String>) -> [ConnectionID] {
        let gone = devices.filter { nodes.contains($0.value.node) }.map(\.key)
        for id in gone {
            devices[id] = nil
        }
        return gone.sorted()
    }

    /// Stops running the devices whose lease lapsed by `heardAt`, when this node last heard its
    /// channel, and returns them; none unless it heard the bus from `hearingSince` on for at
    /// least a lease by then (nil: it does not hear it).
    mutating func removeLapsed(heardAt: Int64, hearingSince: Int64?) -> [ConnectionID] {
        let lease = Self.lease.wholeMilliseconds
        guard let hearingSince, heardAt - hearingSince >= lease else { return [] }
        let lapsed = devices.filter { heardAt - $0.value.renewedAt > lease }.map(\.key)
        for id in lapsed {
            devices[id] = nil
        }
        return lapsed.sorted()
    }
}

import ArgumentParser
import CallGateCluster
import CallGateServer
import Foundation

/// `serve`'s cluster mode options (environment: CALLGATE_CLUSTER, CALLGATE_NODE_ID,
/// CALLGATE_CLUSTER_FORWARD_TIMEOUT).
struct ClusterOptions: ParsableArguments {
    @Option(
        name: .customLong("cluster"),
        help: "Run as one node of a cluster sharing this Redis: redis://[[user]:password@]host[:port][/db]. Needs a postgres:// --database.")
    var redis: String?

    @Option(
        name: .customLong("node-id"),
        help: "This node's id, unique in the cluster (\(ClusterConfiguration.nodeIDPattern); default: hostname:port).")
    var nodeID: String?

    @Option(
        name: .customLong("cluster-forward-timeout"),
        help: "Milliseconds an op forwarded to the node that owns its call waits for the answer before the device gets ERR_CALL_OWNER_UNREACHABLE (default 2000; 50 to 60000).")
    var forwardTimeout: Int?

    /// The bounds of `--cluster-forward-timeout`, in milliseconds.
    static let forwardTimeouts = 50...60_000

    /// The cluster settings asked for, nil for a single process; throws when they are unusable.
    func configuration(port: Int, databaseIsPostgres: Bool) throws -> ClusterConfiguration? {
        let nodeID = nodeID ?? EnvironmentDefault.string("CALLGATE_NODE_ID")
        guard let url = redis ?? EnvironmentDefault.string("CALLGATE_CLUSTER") else {
            if nodeID != nil {
                throw ValidationError("--node-id names a node of a cluster: give --cluster redis://host:port too")
            }
            return nil
        }
        let endpoint: RedisEndpoint
        do {
            endpoint = try RedisEndpoint(parsing: url)
        } catch {
            throw ValidationError("--cluster: \(error)")
        }
        guard databaseIsPostgres else {
            throw ValidationError("cluster mode keeps calls in PostgreSQL, which every node shares: give --database postgres://...")
        }
        let id: String
        if let nodeID {
            id = nodeID
        } else {
            guard port != 0 else {
                throw ValidationError("with port 0 the default node id (hostname:port) is not known in advance: give --node-id")
            }
            id = "\(ProcessInfo.processInfo.hostName):\(port)"
        }
        guard ClusterConfiguration.isValidNodeID(id) else {
            throw ValidationError("node id \"\(id)\" is not usable: \(ClusterConfiguration.nodeIDPattern)")
        }
        var configuration = ClusterConfiguration(redis: endpoint, nodeID: id)
        if let milliseconds = try forwardTimeoutMilliseconds() {
            configuration.forwardTimeout = .milliseconds(milliseconds)
        }
        return configuration
    }

    /// `--cluster-forward-timeout`, else CALLGATE_CLUSTER_FORWARD_TIMEOUT; nil when neither is given.
    private func forwardTimeoutMilliseconds() throws -> Int? {
        let variable = "CALLGATE_CLUSTER_FORWARD_TIMEOUT"
        let value: Int
        if let forwardTimeout {
            value = forwardTimeout
        } else if let text = EnvironmentDefault.string(variable) {
            guard let number = Int(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
            value = number
        } else {
            return nil
        }
        guard Self.forwardTimeouts.contains(value) else {
            throw ValidationError(
                "--cluster-forward-timeout must be \(Self.forwardTimeouts.lowerBound) to \(Self.forwardTimeouts.upperBound) milliseconds, got \(value)")
        }
        return value
    }
}

import ArgumentParser
import CallGateCluster
import CallGateServer
import Foundation

/// `serve`'s cluster mode options (environment: CALLGATE_CLUSTER, CALLGATE_NODE_ID,
/// CALLGATE_CLUSTER_FORWARD_TIMEOUT, CALLGATE_CLUSTER_SECRET, CALLGATE_CLUSTER_PREVIOUS_SECRET,
/// CALLGATE_CLUSTER_SECRET_OVERLAP, CALLGATE_CLUSTER_MESSAGE_MAX_AGE).
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

    @Option(
        name: .customLong("cluster-secret"),
        help: "The secret that seals every message between the nodes (HMAC-SHA256), the same on every node: at least \(BusSignature.minimumSecretBytes) bytes. Required in cluster mode.")
    var secret: String?

    @Option(
        name: .customLong("cluster-previous-secret"),
        help: "While rotating the secret: the one being replaced, still accepted and also sealed with for --cluster-secret-overlap seconds after start.")
    var previousSecret: String?

    @Option(
        name: .customLong("cluster-secret-overlap"),
        help: "Seconds after start that --cluster-previous-secret stays in use (default 3600; 1 to 604800): longer than the rollout of the new secret.")
    var secretOverlap: Int?

    @Option(
        name: .customLong("cluster-message-max-age"),
        help: "Seconds a message between nodes may be old (or ahead, by the receiver's clock) before it is dropped as stale (default 30; 1 to 3600).")
    var messageMaxAge: Int?

    /// The bounds of `--cluster-forward-timeout`, in milliseconds.
    static let forwardTimeouts = 50...60_000
    /// The bounds of `--cluster-secret-overlap`, in seconds.
    static let secretOverlaps = 1...604_800
    /// The bounds of `--cluster-message-max-age`, in seconds.
    static let messageMaxAges = 1...3600

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
        var configuration = ClusterConfiguration(redis: endpoint, nodeID: id, signature: try signature())
        if let milliseconds = try number(
            "--cluster-forward-timeout", forwardTimeout, "CALLGATE_CLUSTER_FORWARD_TIMEOUT", in: Self.forwardTimeouts,
            unit: "milliseconds")
        {
            configuration.forwardTimeout = .milliseconds(milliseconds)
        }
        return configuration
    }

    /// The seal made of `--cluster-secret` and `--cluster-previous-secret` (or their variables).
    private func signature() throws -> BusSignature {
        guard let secret = secret ?? EnvironmentDefault.string("CALLGATE_CLUSTER_SECRET") else {
            throw ValidationError(
                "cluster mode needs --cluster-secret (or CALLGATE_CLUSTER_SECRET): the same secret of at least \(BusSignature.minimumSecretBytes) bytes on every node, e.g. from `openssl rand -hex 32`")
        }
        let previous = previousSecret ?? EnvironmentDefault.string("CALLGATE_CLUSTER_PREVIOUS_SECRET")
        for (name, value) in [("--cluster-secret", secret), ("--cluster-previous-secret", previous)] {
            if let value, value.utf8.count < BusSignature.minimumSecretBytes {
                throw ValidationError(
                    "\(name) must be at least \(BusSignature.minimumSecretBytes) bytes, got \(value.utf8.count)")
            }
        }
        let overlap = try number(
            "--cluster-secret-overlap", secretOverlap, "CALLGATE_CLUSTER_SECRET_OVERLAP", in: Self.secretOverlaps,
            unit: "seconds") ?? 3600
        let maxAge = try number(
            "--cluster-message-max-age", messageMaxAge, "CALLGATE_CLUSTER_MESSAGE_MAX_AGE", in: Self.messageMaxAges,
            unit: "seconds") ?? Int(BusSignature.defaultMaxAge.components.seconds)
        let until = BusSignature.wallClockMillis() + Int64(overlap) * 1000
        guard let signature = BusSignature(
            secret: Array(secret.utf8), previous: previous.map { Array($0.utf8) }, previousUntil: until,
            maxAge: .seconds(maxAge))
        else {
            throw ValidationError("--cluster-secret is not usable")
        }
        return signature
    }

    /// Option `name`'s `value`, else environment variable `variable`'s; nil when neither is
    /// given; throws when it is no number in `bounds`.
    private func number(
        _ name: String, _ value: Int?, _ variable: String, in bounds: ClosedRange<Int>, unit: String
    ) throws -> Int? {
        let given: Int
        if let value {
            given = value
        } else if let text = EnvironmentDefault.string(variable) {
            guard let number = Int(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
            given = number
        } else {
            return nil
        }
        guard bounds.contains(given) else {
            throw ValidationError("\(name) must be \(bounds.lowerBound) to \(bounds.upperBound) \(unit), got \(given)")
        }
        return given
    }
}

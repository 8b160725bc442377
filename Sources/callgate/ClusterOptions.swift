import ArgumentParser
import CallGateCluster
import CallGateServer
import Foundation
import Logging

/// `serve`'s cluster mode options (environment: CALLGATE_CLUSTER, CALLGATE_NODE_ID,
/// CALLGATE_CLUSTER_FORWARD_TIMEOUT, CALLGATE_CLUSTER_SECRET, CALLGATE_CLUSTER_PREVIOUS_SECRET,
/// CALLGATE_CLUSTER_PREVIOUS_SECRET_UNTIL, CALLGATE_CLUSTER_MESSAGE_MAX_AGE).
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
        help: "While rotating the secret: the one being replaced, still accepted and also sealed with until --cluster-previous-secret-until.")
    var previousSecret: String?

    @Option(
        name: .customLong("cluster-previous-secret-until"),
        help: "When --cluster-previous-secret stops being used (Unix seconds, at most 7 days ahead): after the rollout of the new secret. A time past leaves it unused.")
    var previousSecretUntil: Int64?

    @Option(
        name: .customLong("cluster-message-max-age"),
        help: "Seconds a message between nodes may be old (or ahead, by the receiver's clock) before it is dropped as stale (default 30; 1 to 3600).")
    var messageMaxAge: Int?

    /// The bounds of `--cluster-forward-timeout`, in milliseconds.
    static let forwardTimeouts = 50...60_000
    /// How far ahead `--cluster-previous-secret-until` may be, in seconds.
    static let maxPreviousSecretSeconds: Int64 = 604_800
    /// The bounds of `--cluster-message-max-age`, in seconds.
    static let messageMaxAges = 1...3600

    /// The cluster settings asked for, nil for a single process; throws when they are unusable.
    /// Warns through `logger` of a previous secret whose time is over.
    func configuration(port: Int, databaseIsPostgres: Bool, logger: Logger) throws -> ClusterConfiguration? {
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
        var configuration = ClusterConfiguration(redis: endpoint, nodeID: id, signature: try signature(logger: logger))
        if let milliseconds = try number(
            "--cluster-forward-timeout", forwardTimeout, "CALLGATE_CLUSTER_FORWARD_TIMEOUT", in: Self.forwardTimeouts,
            unit: "milliseconds")
        {
            configuration.forwardTimeout = .milliseconds(milliseconds)
        }
        return configuration
    }

    /// `--cluster-secret`, or its variable; nil when neither is set.
    var givenSecret: String? {
        secret ?? EnvironmentDefault.string("CALLGATE_CLUSTER_SECRET")
    }

    /// The seal made of `--cluster-secret` and `--cluster-previous-secret` (or their variables).
    private func signature(logger: Logger) throws -> BusSignature {
        guard let secret = givenSecret else {
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
        let maxAge = try number(
            "--cluster-message-max-age", messageMaxAge, "CALLGATE_CLUSTER_MESSAGE_MAX_AGE", in: Self.messageMaxAges,
            unit: "seconds") ?? Int(BusSignature.defaultMaxAge.components.seconds)
        let until = try previousUntil(given: previous != nil, logger: logger)
        guard let signature = BusSignature(
            secret: Array(secret.utf8), previous: previous.map { Array($0.utf8) }, previousUntil: until * 1000,
            maxAge: .seconds(maxAge))
        else {
            throw ValidationError("--cluster-secret is not usable")
        }
        return signature
    }

    /// `--cluster-previous-secret-until` (or its variable) in Unix seconds, required with a
    /// previous secret, at most `maxPreviousSecretSeconds` ahead; 0 without a previous secret.
    private func previousUntil(given: Bool, logger: Logger) throws -> Int64 {
        let variable = "CALLGATE_CLUSTER_PREVIOUS_SECRET_UNTIL"
        let text = previousSecretUntil.map(String.init) ?? EnvironmentDefault.string(variable)
        guard given else {
            if text != nil {
                throw ValidationError("--cluster-previous-secret-until needs --cluster-previous-secret")
            }
            return 0
        }
        guard let text else {
            throw ValidationError(
                "--cluster-previous-secret needs --cluster-previous-secret-until: when it stops being used (Unix seconds, after the rollout)")
        }
        guard let until = Int64(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'") }
        let now = BusSignature.wallClockMillis() / 1000
        guard until <= now + Self.maxPreviousSecretSeconds else {
            throw ValidationError(
                "--cluster-previous-secret-until must be at most \(Self.maxPreviousSecretSeconds) seconds ahead (\(now + Self.maxPreviousSecretSeconds)), got \(until)")
        }
        if until <= now {
            logger.warning(
                "the previous cluster secret's time is over: it is not used; remove --cluster-previous-secret",
                metadata: ["until": "\(until)"])
        }
        return until
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

import ArgumentParser
import CallGateCluster
import CallGateServer
import Foundation
import Logging

/// `serve`'s cluster mode options.
struct ClusterOptions: ParsableArguments {
    @Option(.cluster) var redis: String?
    @Option(.nodeID) var nodeID: String?
    @Option(.clusterForwardTimeout) var forwardTimeout: Int?
    @Option(.clusterSecret) var secret: String?
    @Option(.clusterPreviousSecret) var previousSecret: String?
    @Option(.clusterPreviousSecretUntil) var previousSecretUntil: Int?
    @Option(.clusterMessageMaxAge) var messageMaxAge: Int?

    /// Each flag with its setting.
    var given: [(ServeSetting, any GivenFlag)] {
        [
            (.cluster, redis), (.nodeID, nodeID), (.clusterForwardTimeout, forwardTimeout), (.clusterSecret, secret),
            (.clusterPreviousSecret, previousSecret), (.clusterPreviousSecretUntil, previousSecretUntil),
            (.clusterMessageMaxAge, messageMaxAge),
        ]
    }

    /// How far ahead `cluster-previous-secret-until` may be, in seconds.
    static let maxPreviousSecretSeconds: Int64 = 604_800

    /// The cluster settings asked for, nil for a single process; throws when they are unusable.
    /// Warns through `logger` of a previous secret whose time is over.
    static func configuration(
        _ settings: ServeSettings, port: Int, databaseIsPostgres: Bool, logger: Logger
    ) throws -> ClusterConfiguration? {
        let nodeID = settings.text(.nodeID)
        guard let url = settings.text(.cluster) else {
            if nodeID != nil {
                throw ValidationError("--node-id names a node of a cluster: give --cluster redis://host:port too")
            }
            return nil
        }
        let endpoint: RedisEndpoint
        do {
            endpoint = try RedisEndpoint(parsing: url)
        } catch {
            throw ValidationError("\(settings.spelling(of: .cluster)): \(error)")
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
        var configuration = ClusterConfiguration(
            redis: endpoint, nodeID: id, signature: try signature(settings, logger: logger))
        if let milliseconds = settings.integer(.clusterForwardTimeout) {
            configuration.forwardTimeout = .milliseconds(milliseconds)
        }
        return configuration
    }

    /// The seal made of `cluster-secret` and `cluster-previous-secret`.
    private static func signature(_ settings: ServeSettings, logger: Logger) throws -> BusSignature {
        guard let secret = settings.text(.clusterSecret) else {
            throw ValidationError(
                "cluster mode needs --cluster-secret (or CALLGATE_CLUSTER_SECRET, or cluster-secret in the config file): the same secret of at least \(BusSignature.minimumSecretBytes) bytes on every node, e.g. from `openssl rand -hex 32`")
        }
        let previous = settings.text(.clusterPreviousSecret)
        for (name, value) in [("--cluster-secret", secret), ("--cluster-previous-secret", previous)] {
            if let value, value.utf8.count < BusSignature.minimumSecretBytes {
                throw ValidationError(
                    "\(name) must be at least \(BusSignature.minimumSecretBytes) bytes, got \(value.utf8.count)")
            }
        }
        let maxAge = settings.integer(.clusterMessageMaxAge) ?? Int(BusSignature.defaultMaxAge.components.seconds)
        let until = try previousUntil(settings, given: previous != nil, logger: logger)
        guard let signature = BusSignature(
            secret: Array(secret.utf8), previous: previous.map { Array($0.utf8) }, previousUntil: until * 1000,
            maxAge: .seconds(maxAge))
        else {
            throw ValidationError("--cluster-secret is not usable")
        }
        return signature
    }

    /// `cluster-previous-secret-until` in Unix seconds, required with a previous secret, at most
    /// `maxPreviousSecretSeconds` ahead; 0 without a previous secret.
    private static func previousUntil(_ settings: ServeSettings, given: Bool, logger: Logger) throws -> Int64 {
        let until = settings.integer(.clusterPreviousSecretUntil).map(Int64.init)
        guard given else {
            if until != nil {
                throw ValidationError("--cluster-previous-secret-until needs --cluster-previous-secret")
            }
            return 0
        }
        guard let until else {
            throw ValidationError(
                "--cluster-previous-secret needs --cluster-previous-secret-until: when it stops being used (Unix seconds, after the rollout)")
        }
        let now = BusSignature.wallClockMillis() / 1000
        guard until <= now + maxPreviousSecretSeconds else {
            throw ValidationError(
                "--cluster-previous-secret-until must be at most \(maxPreviousSecretSeconds) seconds ahead (\(now + maxPreviousSecretSeconds)), got \(until)")
        }
        if until <= now {
            logger.warning(
                "the previous cluster secret's time is over: it is not used; remove --cluster-previous-secret",
                metadata: ["until": "\(until)"])
        }
        return until
    }
}

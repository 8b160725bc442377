/// Async work with a time limit, for the HTTP calls the gateway makes (webhook attempts, JWKS
/// reads): AsyncHTTPClient's own deadline does not cover reading a body that trickles in.
enum TimeLimit {
    /// What `work` returns, unless `limit` passes first: then `work` is cancelled and this throws
    /// what `expired` makes.
    static func run<Value: Sendable>(
        _ limit: Duration, orThrow expired: @escaping @Sendable () -> any Error,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let value = first else { throw expired() }
            return value
        }
    }
}

import CallGateProtocol
import Foundation

extension CallGateClient {
    /// Authenticates this socket with a connection token. With `recover` (an earlier socket's
    /// `recoveryPoint`), the pushes that socket missed come right after the reply, before any
    /// new push, when the result's `recovery.recovered` says so.
    public func connect(token: String, recover: RecoverParams? = nil) async throws -> ConnectResult {
        try await send(.connect(ConnectParams(token: token, recover: recover))).decodeResult(ConnectResult.self)
    }
}

/// Keeping a socket's connection token fresh: the gateway closes a socket with 4003 at its
/// token's `tokenExpiresAt` unless `refreshToken` brought a later one.
extension CallGateClient {
    /// Authenticates with `token`, then keeps the socket's token fresh with tokens from
    /// `fetchToken` (the app's backend, typically) until the socket closes: a minute before each
    /// expiry, or halfway through the time left when that is under two minutes. A fetch or
    /// refresh that fails is tried again halfway through the time then left (at least 100 ms
    /// apart); if none succeeds before the token expires, the gateway closes the socket with 4003.
    public func connect(
        token: String, recover: RecoverParams? = nil,
        refreshingWith fetchToken: @escaping @Sendable () async throws -> String
    ) async throws -> ConnectResult {
        let connected = try await connect(token: token, recover: recover)
        let clockOffset = connected.serverTime - Self.localMillis()
        let task = Task { [weak self] in
            var expiresAt = connected.tokenExpiresAt
            while !Task.isCancelled {
                let remaining = expiresAt * 1000 - (Self.localMillis() + clockOffset)
                guard remaining > 0 else { return }
                let wait = remaining >= 120_000 ? remaining - 60_000 : max(100, remaining / 2)
                try? await Task.sleep(for: .milliseconds(wait))
                guard !Task.isCancelled, let client = self else { return }
                if let refreshed = try? await client.refreshToken(try await fetchToken()) {
                    expiresAt = refreshed.tokenExpiresAt
                }
            }
        }
        adoptRefresher(task)
        return connected
    }

    private static func localMillis() -> Int64 {
        Int64((Date.now.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

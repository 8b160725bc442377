import Foundation

/// How a `CallGateConnection` reaches the gateway and behaves when the network misbehaves.
public struct CallGateConfiguration: Sendable {
    /// The gateway's WebSocket endpoint: `ws://host:port/ws`, or `wss://` behind TLS.
    public var url: URL
    /// The user's connection token (a JWT your backend issues) for the first connect.
    public var token: String
    /// Returns a fresh connection token for the same user (from your backend). With it, the
    /// connection refreshes its token before the gateway would close the socket (4003), and
    /// fetches one before a reconnect when the one it holds is about to expire.
    public var fetchToken: (@Sendable () async throws -> String)?
    /// Whether the connection comes back by itself after a socket that closed unexpectedly.
    public var reconnects: Bool
    /// Whether a ring this connection hands to the app is confirmed to the caller
    /// (`confirmRinging`) at once. Turn it off to confirm yourself once the ring is on screen
    /// (after CallKit's `reportNewIncomingCall`, say).
    public var confirmsRinging: Bool
    /// How long a request waits for its reply before it fails with `.timeout`.
    public var requestTimeout: Duration
    /// The first reconnect's delay; each next one doubles it, up to `maxRetryDelay`, give or
    /// take a quarter so that devices dropped together do not come back at the same instant.
    public var firstRetryDelay: Duration
    /// The longest delay between two reconnects.
    public var maxRetryDelay: Duration

    /// A configuration with the defaults: reconnects on, rings confirmed, 10 s per request,
    /// reconnects 0.5 s doubling to 15 s.
    public init(
        url: URL, token: String, fetchToken: (@Sendable () async throws -> String)? = nil, reconnects: Bool = true,
        confirmsRinging: Bool = true, requestTimeout: Duration = .seconds(10), firstRetryDelay: Duration = .milliseconds(500),
        maxRetryDelay: Duration = .seconds(15)
    ) {
        self.url = url
        self.token = token
        self.fetchToken = fetchToken
        self.reconnects = reconnects
        self.confirmsRinging = confirmsRinging
        self.requestTimeout = requestTimeout
        self.firstRetryDelay = firstRetryDelay
        self.maxRetryDelay = maxRetryDelay
    }
}

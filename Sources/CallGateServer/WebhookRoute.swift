import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// How one endpoint's attempts reach it: an HTTP client of its own (its own connection pool, so
/// an endpoint that never answers holds none of another's connections), connected only to an
/// address `WebhookAddressRules` allows.
///
/// The endpoint's host is resolved here, at most every `refreshInterval`, and the client is
/// pinned to the address checked (AsyncHTTPClient's `dnsOverride`, which keeps the host name for
/// TLS verification and `Host`), so a name that resolves elsewhere at connection time (DNS
/// rebinding) cannot reach inside the network. With private networks allowed, the client
/// resolves as usual.
///
/// Any thread; the state is behind a lock.
final class WebhookRoute: @unchecked Sendable {
    /// How long a checked address is used before the host is resolved again.
    static let refreshInterval: Duration = .seconds(30)

    private let configuration: WebhookConfiguration
    private let lock = NSLock()
    /// The host and the address its client is pinned to (nil: not pinned), when it was checked,
    /// and the client.
    private var current: (host: String, address: String?, checkedAt: ContinuousClock.Instant, client: HTTPClient)?
    private var stopped = false

    /// A route for attempts made under `configuration` (timeouts, CA file, address rules).
    init(configuration: WebhookConfiguration) {
        self.configuration = configuration
    }

    /// The client to post to `url` with. Throws when its host does not resolve within `limit`,
    /// or resolves only inside the network (unless private networks are allowed).
    func client(for url: String, within limit: Duration) async throws(WebhookAddressError) -> HTTPClient {
        guard let host = Self.host(of: url) else { throw .unresolved(host: url, reason: "not a URL with a host") }
        let now = ContinuousClock.now
        if let current = lockedCurrent(), current.host == host,
           configuration.allowsPrivateNetworks || now - current.checkedAt < Self.refreshInterval {
            return current.client
        }
        var address: String?
        if !configuration.allowsPrivateNetworks {
            let checked = await Self.check(host, within: limit)
            address = WebhookAddressRules.text(try checked.get())
        }
        return use(host: host, address: address, checkedAt: now)
    }

    /// The host of `url` exactly as AsyncHTTPClient connects to it and keys `dnsOverride` by:
    /// `URL.host` (an internationalized name in its ASCII `xn--` form), IPv6 brackets trimmed.
    static func host(of url: String) -> String? {
        guard let host = URL(string: url)?.host, !host.isEmpty else { return nil }
        return WebhookAddressRules.unbracketed(host)
    }

    /// Takes no more attempts and shuts its client down once the attempts through it had time to
    /// end (the lane it served was removed, or its URL changed). Returns at once.
    func retire() {
        lock.lock()
        stopped = true
        let client = current?.client
        current = nil
        lock.unlock()
        if let client {
            shutDown(client)
        }
    }

    /// Shuts every client down; attempts still going fail. Blocks; not on an event loop.
    func shutdown() {
        lock.lock()
        stopped = true
        let client = current?.client
        current = nil
        lock.unlock()
        try? client?.syncShutdown()
    }

    private func lockedCurrent() -> (host: String, address: String?, checkedAt: ContinuousClock.Instant, client: HTTPClient)? {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// The client for `host` pinned to `address`: the current one when it matches, else a new
    /// one (the one it replaces is shut down once its attempts had time to end).
    private func use(host: String, address: String?, checkedAt: ContinuousClock.Instant) -> HTTPClient {
        lock.lock()
        if let current, current.host == host, current.address == address {
            self.current?.checkedAt = checkedAt
            lock.unlock()
            return current.client
        }
        var http = Self.clientConfiguration(configuration)
        if let address {
            http.dnsOverride = [host: address]
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        let replaced = stopped ? client : current?.client
        if !stopped {
            current = (host, address, checkedAt, client)
        }
        lock.unlock()
        if let replaced {
            shutDown(replaced)
        }
        return client
    }

    /// Shuts `client` down once the attempts it carries had time to end (an attempt ends within
    /// `--webhook-timeout`).
    private func shutDown(_ client: HTTPClient) {
        let grace = configuration.timeout + .seconds(1)
        Task {
            try? await Task.sleep(for: grace)
            try? await client.shutdown()
        }
    }

    /// Resolves `host` off the cooperative pool (`getaddrinfo` blocks) and picks an allowed
    /// address; a resolver slower than `limit` is not waited for (the lookup ends on its own).
    private static func check(_ host: String, within limit: Duration) async -> Result<[UInt8], WebhookAddressError> {
        await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            DispatchQueue.global().async {
                answer.resume(Result { () throws(WebhookAddressError) in try WebhookAddressRules.allowedAddress(of: host) })
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit.wholeMilliseconds))) {
                answer.resume(.failure(.unresolved(host: host, reason: "no answer from the resolver within \(limit)")))
            }
        }
    }

    /// The HTTP client settings of every endpoint: no redirects (a redirect could lead inside the
    /// network), the attempt timeout for connecting and reading, bodies as they come, the
    /// operator's CA file besides the system's.
    private static func clientConfiguration(_ configuration: WebhookConfiguration) -> HTTPClient.Configuration {
        var http = HTTPClient.Configuration()
        http.redirectConfiguration = .disallow
        let timeout = TimeAmount.milliseconds(configuration.timeout.wholeMilliseconds)
        http.timeout = .init(connect: timeout, read: timeout)
        http.decompression = .disabled
        if let caFile = configuration.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            http.tlsConfiguration = tls
        }
        return http
    }
}

/// A continuation resumed by whichever of two answers comes first (the lookup, or its deadline).
private final class FirstAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<[UInt8], WebhookAddressError>, Never>?

    init(_ continuation: CheckedContinuation<Result<[UInt8], WebhookAddressError>, Never>) {
        self.continuation = continuation
    }

    /// Resumes with `result` unless an answer came already. Any thread.
    func resume(_ result: Result<[UInt8], WebhookAddressError>) {
        lock.lock()
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(returning: result)
    }
}

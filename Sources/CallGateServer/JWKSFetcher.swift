import AsyncHTTPClient
import Foundation
import NIOCore

/// One read of the JWKS URL: a GET that must answer 200 with at most ``JWKSDocument/maxBytes``,
/// all within the timeout, connect to last byte; redirects are not followed. Its own HTTP client,
/// shut down by ``shutdown()``. Any thread.
struct JWKSFetcher: Sendable {
    let url: String
    let timeout: Duration
    private let client: HTTPClient

    /// A fetcher of `url` whose reads end within `timeout`.
    init(url: String, timeout: Duration) {
        self.url = url
        self.timeout = timeout
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let limit = TimeAmount.milliseconds(timeout.wholeMilliseconds)
        configuration.timeout = .init(connect: limit, read: limit)
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The keys the URL publishes now.
    func fetch() async throws(TokenKeyError) -> JWKSDocument.Keys {
        let body: Data
        do {
            body = try await TimeLimit.run(timeout, orThrow: { [url, timeout] in
                TokenKeyError("\(url): no whole answer within \(timeout)")
            }) { [client, url] in
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "accept", value: "application/jwk-set+json, application/json")
                request.headers.add(name: "user-agent", value: "CallGate-JWKS/1")
                let response = try await client.execute(request, timeout: .milliseconds(timeout.wholeMilliseconds))
                guard response.status == .ok else {
                    throw TokenKeyError("\(url): answered \(response.status.code), not 200")
                }
                if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > JWKSDocument.maxBytes {
                    throw TokenKeyError("\(url): the JWKS is \(length) bytes; at most \(JWKSDocument.maxBytes) are read")
                }
                do {
                    return Data(try await response.body.collect(upTo: JWKSDocument.maxBytes).readableBytesView)
                } catch is NIOTooManyBytesError {
                    throw TokenKeyError("\(url): the JWKS is over \(JWKSDocument.maxBytes) bytes; at most that many are read")
                }
            }
        } catch let error as TokenKeyError {
            throw error
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            throw TokenKeyError("\(url): no whole answer within \(timeout)")
        } catch {
            throw TokenKeyError("\(url): \(error)")
        }
        return try await JWKSDocument.keys(from: body, origin: url)
    }

    /// Closes the client's connections; fetches still running fail.
    func shutdown() {
        Task { [client] in try? await client.shutdown() }
    }
}

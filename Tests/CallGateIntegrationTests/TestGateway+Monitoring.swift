import TestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The monitoring routes of a test gateway: `/metrics` and `/readyz`, without credentials.
extension TestGateway {
    /// `method path` with no credentials: the status, the Content-Type and the body.
    func monitor(_ path: String, method: String = "GET") async throws -> (status: Int, contentType: String?, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"), data)
    }

    /// The metrics now; fails unless `/metrics` answers 200.
    func scrape() async throws -> MetricsScrape {
        let (status, _, body) = try await monitor("/metrics")
        guard status == 200 else { throw UnexpectedStatus(status: status, body: String(decoding: body, as: UTF8.self)) }
        return MetricsScrape(String(decoding: body, as: UTF8.self))
    }

    /// `/readyz` once it answers `status`, polled for at most 10 seconds: the last status and body.
    func readiness(until status: Int) async throws -> (Int, Data) {
        let deadline = ContinuousClock.now + .seconds(10)
        var (latest, _, body) = try await monitor("/readyz")
        while latest != status, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            (latest, _, body) = try await monitor("/readyz")
        }
        return (latest, body)
    }

    /// The metrics once `condition` holds on them. The server counts a close when its side of
    /// the close handshake is over, which may come after the client saw the close; gives up
    /// after 10 seconds and returns the last scrape.
    func scrape(until condition: (MetricsScrape) -> Bool) async throws -> MetricsScrape {
        let deadline = ContinuousClock.now + .seconds(10)
        var latest = try await scrape()
        while !condition(latest), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            latest = try await scrape()
        }
        #expect(condition(latest), "the metrics never reached the expected state")
        return latest
    }
}

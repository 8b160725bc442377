@testable import CallGateServer
import Testing

@Suite("Which upgrades are admitted")
struct AdmissionControlTests {
    private func control(_ adjust: (inout ServerConfiguration) -> Void) -> AdmissionControl {
        var configuration = ServerConfiguration(jwtSecret: "s", adminKey: "k")
        adjust(&configuration)
        return AdmissionControl(configuration: configuration)
    }

    @Test func theOriginIsCheckedBeforeTheCaps() {
        var admission = control {
            $0.allowedOrigins = ["https://app.example.com"]
            $0.maxConnections = 1
        }
        admission.counts.opened("a")
        #expect(admission.refusal(origin: "https://evil.example", clientAddress: "b") == .originRefused)
        #expect(admission.refusal(origin: "https://app.example.com", clientAddress: "b") == .serverFull)
    }

    @Test func eachRefusalHasItsStatusAndCode() throws {
        #expect(LimitEvent.originRefused.refusal.status == 403)
        #expect(LimitEvent.addressFull.refusal.status == 429)
        #expect(LimitEvent.serverFull.refusal.status == 503)
        let body = String(decoding: LimitEvent.addressFull.refusal.body, as: UTF8.self)
        #expect(body.contains(#""code":"ERR_TOO_MANY_CONNECTIONS""#))
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let configuration = ServerConfiguration(jwtSecret: "s", adminKey: "k")
        #expect(configuration.maxConnectionsPerAddress == 5000)
        #expect(configuration.maxMessagesPerSecond == 50)
        #expect(configuration.livenessInterval == .seconds(60))
        #expect(configuration.shutdownTimeout == .seconds(10))
        #expect(configuration.maxConnections == OpenFileLimit.defaultMaxConnections())
        #expect(configuration.maxConnections >= 1)
    }
}

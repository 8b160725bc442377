@testable import CallGateServer
import Testing

@Suite("Which connections and upgrades are admitted")
struct AdmissionControlTests {
    private func control(_ adjust: (inout ServerConfiguration) -> Void) -> AdmissionControl {
        var configuration = ServerConfiguration(jwtSecret: "s", adminKey: "k")
        adjust(&configuration)
        return AdmissionControl(configuration: configuration)
    }

    @Test func everyConnectionCountsAgainstItsPeersCapFromAccept() {
        var admission = control { $0.maxConnectionsPerAddress = 2 }
        #expect(admission.accepted(peer: "192.0.2.1") == nil)
        #expect(admission.accepted(peer: "192.0.2.1") == nil)
        #expect(admission.accepted(peer: "192.0.2.1") == .addressFull, "the third, HTTP or not, is refused")
        #expect(admission.accepted(peer: "192.0.2.2") == nil)
        #expect(admission.counts.count(for: "192.0.2.1") == 3, "a refused connection counts until it ends")
        admission.ended(peer: "192.0.2.1")
        admission.ended(peer: "192.0.2.1")
        #expect(admission.accepted(peer: "192.0.2.1") == nil)
    }

    @Test func aFullProcessRefusesEveryConnection() {
        var admission = control { $0.maxConnections = 2 }
        _ = admission.accepted(peer: "192.0.2.1")
        _ = admission.accepted(peer: "192.0.2.2")
        #expect(admission.accepted(peer: "192.0.2.3") == .serverFull)
        admission.ended(peer: "192.0.2.3")
        admission.ended(peer: "192.0.2.1")
        #expect(admission.accepted(peer: "192.0.2.3") == nil)
    }

    @Test func aDirectSocketIsCountedOnceFromAcceptAndItsUpgradeIsNotCheckedAgain() {
        var admission = control { $0.maxConnectionsPerAddress = 1 }
        #expect(admission.accepted(peer: "192.0.2.1") == nil)
        #expect(admission.upgradeRefusal(origin: nil, peer: "192.0.2.1", clientAddress: "192.0.2.1") == nil)
        #expect(admission.socketOpened(peer: "192.0.2.1", clientAddress: "192.0.2.1") == nil)
        #expect(admission.counts.count(for: "192.0.2.1") == 1)
    }

    @Test func throughATrustedProxyOnlySocketsCountAndUnderTheForwardedAddress() throws {
        var admission = control {
            $0.maxConnectionsPerAddress = 1
            $0.trustedProxies = try! TrustedProxies(["10.0.0.0/8"])
        }
        for _ in 0..<5 {
            #expect(admission.accepted(peer: "10.0.0.5") == nil, "the proxy's connections carry many clients")
        }
        #expect(admission.upgradeRefusal(origin: nil, peer: "10.0.0.5", clientAddress: "203.0.113.9") == nil)
        let counted = admission.socketOpened(peer: "10.0.0.5", clientAddress: "203.0.113.9")
        #expect(counted == "203.0.113.9")
        #expect(admission.upgradeRefusal(origin: nil, peer: "10.0.0.5", clientAddress: "203.0.113.9") == .addressFull)
        #expect(admission.upgradeRefusal(origin: nil, peer: "10.0.0.5", clientAddress: "203.0.113.10") == nil)
        admission.socketClosed(countedUnder: "203.0.113.9")
        #expect(admission.upgradeRefusal(origin: nil, peer: "10.0.0.5", clientAddress: "203.0.113.9") == nil)
    }

    @Test func theOriginIsCheckedFirst() {
        var admission = control {
            $0.allowedOrigins = ["https://app.example.com"]
            $0.maxConnectionsPerAddress = 1
            $0.trustedProxies = try! TrustedProxies(["10.0.0.0/8"])
        }
        _ = admission.socketOpened(peer: "10.0.0.5", clientAddress: "203.0.113.9")
        #expect(admission.upgradeRefusal(origin: "https://evil.example", peer: "10.0.0.5", clientAddress: "203.0.113.9") == .originRefused)
        #expect(admission.upgradeRefusal(origin: "https://app.example.com", peer: "10.0.0.5", clientAddress: "203.0.113.9") == .addressFull)
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

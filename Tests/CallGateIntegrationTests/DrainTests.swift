import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import Testing
import TestSupport

/// `POST /v1/admin/drain` on a real gateway: readiness and upgrades refused at once, the sockets
/// closed with 1012 and the reconnect hint, spread over the drain window, the state told by
/// `GET`, and the contract's schema met.
@Suite("Draining over real sockets")
struct DrainTests {
    /// The body of `/v1/admin/drain`'s answers.
    struct DrainState: Decodable, Equatable {
        let draining: Bool
        let drained: Bool
        let sockets: Int
        let windowSeconds: Int
    }

    @Test func aDrainClosesEverySocketWith1012AndTheHintSpreadOverTheWindow() async throws {
        let gateway = try await TestGateway { $0.drainWindow = .seconds(2) }
        defer { gateway.shutdown() }
        var devices: [CallGateClient] = []
        for index in 0..<8 {
            devices.append(try await gateway.device("user\(index)"))
        }
        let (beforeStatus, beforeBody) = try await gateway.admin("GET", "/v1/admin/drain")
        #expect(beforeStatus == 200)
        #expect(try JSONDecoder().decode(DrainState.self, from: beforeBody) == DrainState(
            draining: false, drained: false, sockets: 8, windowSeconds: 2))
        #expect(try await gateway.monitor("/readyz").status == 200, "a GET begins nothing")

        let began = ContinuousClock.now
        let (status, body) = try await gateway.admin("POST", "/v1/admin/drain")
        #expect(status == 202)
        #expect(try JSONDecoder().decode(DrainState.self, from: body).draining)
        let (readiness, _, readinessBody) = try await gateway.monitor("/readyz")
        #expect(readiness == 503, "not ready from the first moment")
        let refusal = try JSONDecoder().decode(HTTPErrorBody.self, from: readinessBody).error
        #expect(refusal.code == .notReady)
        #expect(refusal.message.contains("draining"), "\(refusal.message)")
        let late = try await RawWebSocket.open(port: gateway.port)
        #expect(late.status == 503, "no new socket while draining")

        var closedAfter: [Duration] = []
        for device in devices {
            #expect(try await device.expectClose(within: .seconds(10)) == CloseCode.serviceRestart)
            #expect(device.reconnectHint == ReconnectHint.gateway, "\(device.closeReason ?? "no reason")")
            closedAfter.append(ContinuousClock.now - began)
        }
        closedAfter.sort()
        // The k-th of 8 closes is due once (k-1)/8 of the 2 s window passed: the last not before
        // 1.75 s, the first at the first tick.
        #expect(closedAfter.last! >= .milliseconds(1750), "the last close waits for the end of the window: \(closedAfter)")
        #expect(closedAfter.first! < .seconds(1), "the first close goes early: \(closedAfter)")

        let drained = try await eventually(within: 10) {
            let (_, body) = try await gateway.admin("GET", "/v1/admin/drain")
            return try JSONDecoder().decode(DrainState.self, from: body).drained
        }
        #expect(drained)
        let (_, finalBody) = try await gateway.admin("GET", "/v1/admin/drain")
        #expect(try JSONDecoder().decode(DrainState.self, from: finalBody) == DrainState(
            draining: true, drained: true, sockets: 0, windowSeconds: 2))
        let metrics = try await gateway.scrape { $0["callgate_sockets_closed_total{code=\"1012\"}"] == 8 }
        #expect(metrics["callgate_draining"] == 1)

        let report = try await ProtoChecker.check([
            SchemaLine(schema: "http.drain", json: beforeBody), SchemaLine(schema: "http.drain", json: body),
            SchemaLine(schema: "http.drain", json: finalBody), SchemaLine(schema: "http.error", json: readinessBody),
        ])
        #expect(report.exitCode == 0, "\(report.output)")
    }

    /// A drain already under way is joined, not begun again: its window does not restart.
    @Test func aSecondPostJoinsTheDrainUnderWay() async throws {
        let gateway = try await TestGateway { $0.drainWindow = .seconds(30) }
        defer { gateway.shutdown() }
        let first = try await gateway.device("alice")
        let second = try await gateway.device("bob")
        #expect(try await gateway.admin("POST", "/v1/admin/drain").0 == 202)
        #expect(try await first.expectClose(within: .seconds(5)) == CloseCode.serviceRestart, "the first of two goes at once")
        let (status, body) = try await gateway.admin("POST", "/v1/admin/drain")
        #expect(status == 202)
        #expect(try JSONDecoder().decode(DrainState.self, from: body) == DrainState(
            draining: true, drained: false, sockets: 1, windowSeconds: 30))
        await second.expectSilence(for: .milliseconds(500))
    }

    @Test func theDrainNeedsTheAdminKeyAndAnswersGETAndPOSTOnly() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        #expect(try await gateway.admin("POST", "/v1/admin/drain", key: nil).0 == 401)
        #expect(try await gateway.admin("POST", "/v1/admin/drain", key: "wrong").0 == 401)
        let (status, body) = try await gateway.admin("DELETE", "/v1/admin/drain")
        #expect(status == 405)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: body).error.code == .methodNotAllowed)
        #expect(try await gateway.admin("POST", "/v1/admin/drain/now").0 == 404)
        #expect(try await gateway.monitor("/readyz").status == 200, "nothing refused began a drain")
    }
}

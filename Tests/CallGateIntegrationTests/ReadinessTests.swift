import CallGateServer
import CallGateStoreSQLite
import Foundation
import Testing

/// `GET /readyz` follows whether the real SQLite store takes writes, as the writer last saw it
/// (its writes, and its probe while idle), without a store write per request.
@Suite("Readiness over real HTTP")
struct ReadinessTests {
    @Test func readyWhileTheStoreTakesWrites() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (status, contentType, body) = try await gateway.monitor("/readyz")
        #expect(status == 200)
        #expect(contentType == "application/json")
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ready"}"#)
    }

    /// As root, file permissions do not stop SQLite from writing; a lock held by another
    /// connection past the busy timeout does, as it would in production.
    @Test func notReadyWhileAnotherConnectionHoldsTheWriteLock() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("callgate.sqlite")
        let store = try SQLiteCallLogStore(path: path, durability: .processCrash, busyTimeout: 0.2)
        let gateway = try await TestGateway(directory: directory) {
            $0.store = store
            $0.storeProbeInterval = .milliseconds(200)
        }
        defer { gateway.shutdown() }
        #expect(try await gateway.monitor("/readyz").status == 200)

        let lock = try await WriteLockHolder.hold(path)
        let (status, body) = try await gateway.readiness(until: 503)
        await lock.unlock()
        #expect(status == 503)
        let error = try JSONDecoder().decode(HTTPErrorBody.self, from: body)
        #expect(error.error.code == .notReady)
        #expect(error.error.message.contains("does not accept writes"), "\(error.error.message)")

        let (statusAfter, bodyAfter) = try await gateway.readiness(until: 200)
        #expect(statusAfter == 200)

        let report = try await ProtoChecker.check([
            SchemaLine(schema: "http.error", json: body), SchemaLine(schema: "http.ready", json: bodyAfter),
        ])
        #expect(report.exitCode == 0, "\(report.output)")
    }

    @Test func onlyGETIsAnswered() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (status, _, body) = try await gateway.monitor("/readyz", method: "DELETE")
        #expect(status == 405)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: body).error.code == .methodNotAllowed)
    }
}

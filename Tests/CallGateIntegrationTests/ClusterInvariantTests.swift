import CallGateClient
import CallGateProtocol
import Foundation
import Testing
import TestSupport

/// Random ops from devices spread over three nodes, on calls of every node (auto-busy off, so
/// that people in a call are rung by others), checked against the invariants of the ringing
/// machine: nobody starts or accepts a call while in another; every call ends with one terminal
/// status (what the clients saw, and one row in the log); no device is rung for a call after it
/// was told the call stopped ringing it.
@Suite(.serialized) struct ClusterInvariantTests {
    static let users = ["u0", "u1", "u2", "u3"]

    @Test(arguments: [11, 12] as [UInt64])
    func randomOpsOverThreeNodesKeepTheInvariants(seed: UInt64) async throws {
        let cluster = try await RoutingCluster(["a", "b", "c"], ["--max-calls-per-minute", "100000", "--max-messages-per-second", "10000", "--no-auto-busy"])
        defer { cluster.stop() }
        var random = SplitMix64(seed: seed)
        let nodes = ["a", "b", "c"]
        var devices: [(uid: String, client: CallGateClient)] = []
        for uid in Self.users {
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                devices.append((uid, try await cluster.device(uid, on: nodes.randomElement(using: &random)!)))
            }
        }
        let witness = TerminalStatusWitness()
        var sessions: [String] = []
        // The test's own account of who is in which live call, from the replies it got: ops
        // run one at a time and no timer is due within the test, so it is exact.
        var engaged: [String: Set<String>] = [:]
        var live: [String: Set<String>] = [:]
        var violations: [String] = []
        for step in 0..<200 {
            let device = devices.randomElement(using: &random)!
            let roll = Int.random(in: 0..<10, using: &random)
            let request: ClientRequest
            if roll < 3 || sessions.isEmpty {
                let callee = Self.users.filter { $0 != device.uid }.randomElement(using: &random)!
                request = .initiateCall(InitiateCallParams(receiverId: callee, receiverType: .user, callType: .audio, timeout: 60))
            } else {
                let sessionId = sessions.suffix(6).randomElement(using: &random)!
                let params = SessionParams(sessionId: sessionId)
                request = switch roll {
                case 3, 4, 5: .acceptCall(params)
                case 6: .rejectCall(RejectCallParams(sessionId: sessionId, status: .rejected))
                case 7: .rejectCall(RejectCallParams(sessionId: sessionId, status: .cancelled))
                default: .endCall(params)
                }
            }
            guard let call = try? await device.client.send(request).decodeResult(Call.self) else { continue }
            witness.saw(call)
            switch request {
            case .initiateCall:
                sessions.append(call.sessionId)
                if !(engaged[device.uid] ?? []).isEmpty {
                    violations.append("step \(step): \(device.uid) started \(call.sessionId) while in \(engaged[device.uid]!)")
                }
            case .acceptCall:
                if !(engaged[device.uid] ?? []).subtracting([call.sessionId]).isEmpty {
                    violations.append("step \(step): \(device.uid) accepted \(call.sessionId) while in \(engaged[device.uid]!)")
                }
            default:
                break
            }
            if call.callStatus.isTerminal {
                for uid in live.removeValue(forKey: call.sessionId) ?? [] {
                    engaged[uid]?.remove(call.sessionId)
                }
            } else {
                let uid = device.uid
                live[call.sessionId, default: []].insert(uid)
                engaged[uid, default: []].insert(call.sessionId)
            }
        }
        #expect(violations.isEmpty, "\(violations)")
        #expect(sessions.count >= 10)
        // Every call ends: its participants hang up, its caller cancels.
        for sessionId in sessions {
            for device in devices {
                _ = try await device.client.send(.endCall(SessionParams(sessionId: sessionId)))
                _ = try await device.client.send(.rejectCall(RejectCallParams(sessionId: sessionId, status: .cancelled)))
            }
        }
        try await Task.sleep(for: .milliseconds(500))

        for device in devices {
            var stopped = Set<String>()
            while let event = await device.client.nextEvent(timeout: .milliseconds(100)) {
                guard case .push(let push) = event else { continue }
                witness.saw(push)
                switch push {
                case .incomingCallReceived(let call, _):
                    #expect(!stopped.contains(call.sessionId), "\(device.uid) was rung for \(call.sessionId) after it stopped")
                case .incomingCallCanceled(let call, _), .callEndedMessageReceived(let call, _, _):
                    stopped.insert(call.sessionId)
                default:
                    break
                }
            }
        }
        #expect(witness.contradictions.isEmpty, "\(witness.contradictions)")

        let rows = try await databaseRows(cluster.database, "SELECT session_id, status FROM calls ORDER BY id")
        var logged: [String: [String]] = [:]
        for row in rows {
            let fields = row.split(separator: "|").map(String.init)
            logged[fields[0], default: []].append(fields[1])
        }
        #expect(Set(logged.keys) == Set(sessions), "every call is in the log")
        for (sessionId, statuses) in logged {
            #expect(statuses.count == 1 && CallStatus(rawValue: statuses[0])?.isTerminal == true, "\(sessionId): \(statuses)")
            if let seen = witness.statuses[sessionId] {
                #expect(statuses == [seen.rawValue], "\(sessionId): clients saw \(seen), the log has \(statuses)")
            }
        }

    }
}

import CallGateClient
import CallGateProtocol
import CallGateServer
import Foundation
import TestSupport
import Testing

/// `GET /metrics` on a real gateway after real clients used it: exact counts.
@Suite("Prometheus metrics over real HTTP")
struct MetricsTests {
    @Test func aCallAndARefusedConnectAreCountedExactly() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let call = try await alice.ring("bob", ringing: [bob])
        _ = try await bob.acceptCall(call.sessionId)
        _ = try await alice.expectPush()
        _ = try await alice.endCall(call.sessionId)
        _ = try await bob.expectPush()
        let stranger = try await gateway.socket()
        await expectError(.authError) { try await stranger.connect(token: "nope") }
        #expect(try await stranger.expectClose() == 4001)
        await bob.close()

        let metrics = try await gateway.scrape {
            $0[#"callgate_sockets_closed_total{code="4001"}"#] == 1 && $0[#"callgate_sockets_closed_total{code="1000"}"#] == 1
        }
        #expect(metrics.unreadable.isEmpty)
        #expect(metrics["callgate_sockets_open"] == 1)
        #expect(metrics[#"callgate_sockets_closed_total{code="4008"}"#] == 0)
        // 2 connects, initiateCall, acceptCall, endCall, the stranger's connect.
        #expect(metrics["callgate_frames_received_total"] == 6)
        // 2 connect replies, then a reply and a push for each call op, then the AUTH_ERR reply.
        #expect(metrics["callgate_frames_sent_total"] == 9)
        #expect(metrics[#"callgate_pushes_delivered_total{event="onIncomingCallReceived"}"#] == 1)
        #expect(metrics[#"callgate_pushes_delivered_total{event="onOutgoingCallAccepted"}"#] == 1)
        #expect(metrics[#"callgate_pushes_delivered_total{event="onCallEndedMessageReceived"}"#] == 1)
        #expect(metrics[#"callgate_pushes_delivered_total{event="onIncomingCallCanceled"}"#] == 0)
        #expect(metrics[#"callgate_calls_finished_total{status="ended"}"#] == 1)
        #expect(metrics[#"callgate_calls_finished_total{status="unanswered"}"#] == 0)
        #expect(metrics["callgate_ring_latency_seconds_count"] == 1)
        #expect((metrics["callgate_ring_latency_seconds_sum"] ?? 0) > 0)
        // Every answered request is timed by its op, the refused connect too.
        #expect(metrics[#"callgate_op_seconds_count{op="connect"}"#] == 3)
        #expect(metrics[#"callgate_op_seconds_count{op="initiateCall"}"#] == 1)
        #expect(metrics[#"callgate_op_seconds_count{op="acceptCall"}"#] == 1)
        #expect(metrics[#"callgate_op_seconds_count{op="endCall"}"#] == 1)
        #expect(metrics[#"callgate_op_seconds_count{op="rejectCall"}"#] == 0)
        #expect((metrics[#"callgate_op_seconds_sum{op="initiateCall"}"#] ?? 0) > 0)
        #expect(metrics["callgate_outbound_queue_drops_total"] == 0)
        #expect(metrics[#"callgate_auth_failures_total{reason="malformed"}"#] == 1)
        #expect(metrics[#"callgate_auth_failures_total{reason="expired"}"#] == 0)
        #expect(metrics["callgate_store_write_failures_total"] == 0)
        #expect((metrics["callgate_store_write_seconds_count"] ?? 0) >= 1)
        #expect(metrics["callgate_store_write_seconds_count"] == metrics["callgate_store_batch_size_count"])
    }

    @Test func aCallThatRingsNoDeviceIsNotTimedAsARing() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        _ = try await alice.initiateCall(to: "dave")
        let call = try await bob.initiateCall(to: "alice")
        _ = try await alice.expectPush()

        let metrics = try await gateway.scrape { $0["callgate_ring_latency_seconds_count"] == 1 }
        // dave has no device here: his call was taken up but rang nothing, and only alice's ring is timed.
        #expect(metrics["callgate_ring_latency_seconds_count"] == 1)
        #expect(metrics[#"callgate_pushes_delivered_total{event="onIncomingCallReceived"}"#] == 1)
        #expect(call.callStatus == .initiated)
    }

    @Test func aSlowConsumerLosesItsQueueAndIsCounted() async throws {
        let gateway = try await TestGateway { $0.maxQueuedFrames = 1 }
        defer { gateway.shutdown() }
        let alice = try await gateway.device("alice")
        let bob = try await gateway.device("bob")
        let carol = try await gateway.device("carol")
        _ = try await alice.establishCall(with: bob, uid: "bob")
        // Auto-busy answers carol with a reply and a push in one go, both waiting for the busy
        // status to be durable: the push finds the reply waiting, so the socket is closed with
        // 4008 and both frames are lost.
        do {
            _ = try await carol.initiateCall(to: "bob")
            Issue.record("the reply should have been lost with the socket")
        } catch CallGateClientError.closed(let code) {
            #expect(code == 4008)
        }

        // 3 connect replies, 2 frames for the ring and 2 for the accept, and bob's count of missed
        // calls, which follows the busy status's commit: auto-busy did not ring him, so carol's
        // call is a missed call of his.
        let metrics = try await gateway.scrape {
            $0[#"callgate_sockets_closed_total{code="4008"}"#] == 1 && $0["callgate_frames_sent_total"] == 8
        }
        #expect(metrics["callgate_outbound_queue_drops_total"] == 2)
        #expect(metrics["callgate_sockets_open"] == 2)
        #expect(metrics[#"callgate_calls_finished_total{status="busy"}"#] == 1)
    }

    @Test func metricsArePlainTextForGETOnly() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (status, contentType, body) = try await gateway.monitor("/metrics")
        #expect(status == 200)
        #expect(contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: body, as: UTF8.self).contains("# TYPE callgate_sockets_open gauge\n"))
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("# HELP callgate_sockets_open WebSockets open now"))
        let (postStatus, _, postBody) = try await gateway.monitor("/metrics", method: "POST")
        #expect(postStatus == 405)
        #expect(try JSONDecoder().decode(HTTPErrorBody.self, from: postBody).error.code == .methodNotAllowed)
    }

    @Test func everyMetricHasHelpAndTheProcessAndBuildAreReported() async throws {
        let gateway = try await TestGateway()
        defer { gateway.shutdown() }
        let (_, _, body) = try await gateway.monitor("/metrics")
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").map(String.init)
        var helped: Set<String> = []
        var typed: [String] = []
        for line in lines {
            let words = line.split(separator: " ")
            if line.hasPrefix("# HELP "), words.count > 3 { helped.insert(String(words[2])) }
            if line.hasPrefix("# TYPE "), words.count == 4 {
                typed.append(String(words[2]))
                #expect(helped.contains(String(words[2])), "\(words[2]) has no # HELP before its # TYPE")
            }
        }
        #expect(typed.count == Set(typed).count, "a metric is typed twice")
        let metrics = MetricsScrape(lines.joined(separator: "\n"))
        #expect(metrics.unreadable.isEmpty)
        #expect(metrics[#"callgate_build_info{version="\#(GatewayVersion.release)",protocol="callgate.v1"}"#] == 1)
        #expect((metrics["process_resident_memory_bytes"] ?? 0) > 1_000_000)
        #expect((metrics["process_open_fds"] ?? 0) > 3)
        #expect((metrics["process_max_fds"] ?? 0) >= (metrics["process_open_fds"] ?? 0))
        #expect((metrics["process_cpu_seconds_total"] ?? -1) >= 0)
        let started = metrics["process_start_time_seconds"] ?? 0
        #expect(abs(started - Date().timeIntervalSince1970) < 24 * 3600)
        // docs/operations.md lists every metric of the exposition.
        let operations = try String(contentsOf: ProtoChecker.repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        for name in typed {
            #expect(operations.contains("`\(name)`"), "docs/operations.md does not list \(name)")
        }
    }
}

import LWS
import TestSupport
import Testing

/// The write rule: a frame goes out at once when its socket can take it, else it waits in the
/// socket's queue behind the unsent tail lws keeps; either way frames leave whole and in order,
/// control frames never land inside a data frame, and a reader that stops costs only itself.
@Suite("Writing at once, queueing when the socket is full")
struct WritePathTests {
    private func withServer(
        maxQueuedFrames: Int = 1024, maxMessageBytes: Int = 64 * 1024,
        _ body: (LWSContext, BurstHandler) async throws -> Void
    ) async throws {
        let handler = BurstHandler()
        var configuration = ContextConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), protocolName: "test.v1")
        configuration.maxQueuedFrames = maxQueuedFrames
        configuration.maxMessageBytes = maxMessageBytes
        let server = LWSContext(configuration: configuration)
        try server.start(webSocketDelegate: handler)
        defer { server.stop() }
        try await body(server, handler)
    }

    /// A client that reads only when the test says so, with a 4 KiB receive buffer.
    private func stalledReader(of server: LWSContext) async throws -> RawWebSocket {
        let reader = try await RawWebSocket.open(port: server.port, subprotocol: nil, receiveBufferBytes: 4096)
        try #require(reader.status == 101)
        return reader
    }

    /// A stalled reader that asked for a burst of `count` frames, once the server handed them
    /// over, and the server's id of its socket.
    private func stalledReaderAfterBurst(
        _ count: Int, of server: LWSContext, _ handler: BurstHandler
    ) async throws -> (RawWebSocket, UInt64) {
        let reader = try await stalledReader(of: server)
        try #require(try await eventually { handler.opened.count == 1 })
        let id = handler.opened[0]
        try await reader.send("burst \(count)")
        try #require(try await eventually { handler.queued(id) != nil })
        return (reader, id)
    }

    /// A client that reads everything, once the server knows it as its `count`th socket.
    private func readingClient(of server: LWSContext, _ handler: BurstHandler, count: Int) async throws -> LoopbackClient {
        let reading = try LoopbackClient(ClientTarget(host: "127.0.0.1", port: server.port))
        #expect(await reading.next() == .opened)
        try #require(try await eventually { handler.opened.count == count })
        return reading
    }

    /// Asks through `reading` for `rounds` broadcasts of six frames, each after the last
    /// arrived, and checks that every frame reached it; false at the first that did not.
    private func broadcast(rounds: Int, through reading: LoopbackClient) async -> Bool {
        for round in 0..<rounds {
            reading.send("broadcast 6")
            for index in round * 6..<round * 6 + 6 {
                let expected = String(decoding: BurstHandler.broadcastPayload(index), as: UTF8.self)
                guard await reading.next() == .message(expected) else {
                    Issue.record("the reading client lost frame \(index)")
                    return false
                }
            }
        }
        return true
    }

    /// Waits up to ten seconds for `condition`, which another thread makes true.
    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1000 where !condition() {
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Reads frames until the first that is not a pong, counting the pongs on the way.
    private func nextSkippingPongs(_ reader: RawWebSocket, pongs: inout [[UInt8]]) async -> RawWebSocket.Read {
        while true {
            let read = await reader.read(within: .seconds(10))
            guard case .frame(let frame) = read, frame.opcode == 0xA else { return read }
            pongs.append(frame.payload)
        }
    }

    @Test func framesLeaveWholeAndInOrderWhenTheReaderIsSlow() async throws {
        try await withServer { server, handler in
            let (reader, id) = try await stalledReaderAfterBurst(60, of: server, handler)
            #expect(handler.queued(id)! > 0, "the burst should outrun the socket, so some frames wait in the queue")
            for index in 0..<60 {
                guard case .frame(let frame) = await reader.read(within: .seconds(10)) else {
                    Issue.record("frame \(index) did not arrive")
                    return
                }
                let intact = frame.opcode == 0x1 && frame.payload == BurstHandler.burstPayload(index)
                #expect(intact, "frame \(index) was cut or reordered")
            }
        }
    }

    @Test func aPongAndTheCloseFrameWaitForTheFrameBeingWritten() async throws {
        try await withServer { server, handler in
            let (reader, _) = try await stalledReaderAfterBurst(30, of: server, handler)
            try await reader.ping(Array("are you there".utf8))
            try await reader.send("close-me")
            var pongs: [[UInt8]] = []
            for index in 0..<30 {
                guard case .frame(let frame) = await nextSkippingPongs(reader, pongs: &pongs) else {
                    Issue.record("frame \(index) did not arrive")
                    return
                }
                let intact = frame.opcode == 0x1 && frame.payload == BurstHandler.burstPayload(index)
                #expect(intact, "frame \(index) was cut or reordered")
            }
            guard case .frame(let close) = await nextSkippingPongs(reader, pongs: &pongs) else {
                Issue.record("no close frame after the burst")
                return
            }
            #expect(close.closeCode == 4001)
            #expect(pongs.map { String(decoding: $0, as: UTF8.self) } == ["are you there"])
        }
    }

    @Test func aReaderThatStopsIsClosedWith4008AndCostsOthersNothing() async throws {
        try await withServer(maxQueuedFrames: 8) { server, handler in
            let stalled = try await stalledReader(of: server)
            try #require(try await eventually { handler.opened.count == 1 })
            let reading = try await readingClient(of: server, handler, count: 2)
            defer { reading.stop() }
            let (stalledID, readingID) = (handler.opened[0], handler.opened[1])
            guard await broadcast(rounds: 50, through: reading) else { return }
            #expect(handler.closeCode(stalledID) == 4008)
            #expect(handler.closeCode(readingID) == nil)
            var index = 0
            var read = await stalled.read(within: .seconds(10))
            while case .frame(let frame) = read, frame.opcode == 0x1 {
                let intact = frame.payload == BurstHandler.broadcastPayload(index)
                #expect(intact, "frame \(index) was cut or reordered")
                index += 1
                read = await stalled.read(within: .seconds(10))
            }
            guard case .frame(let close) = read else {
                Issue.record("the stalled reader got no close frame after \(index) frames: \(read)")
                return
            }
            #expect(close.closeCode == 4008)
            #expect(index < 300, "the stalled reader should have lost the frames past its cap")
        }
    }

    @Test func aSocketResetMidWriteFreesItsQueue() async throws {
        try await withServer { server, handler in
            let (reader, id) = try await stalledReaderAfterBurst(60, of: server, handler)
            #expect(handler.framesAlive > 0, "frames waiting in the queue are held by it")
            reader.reset()
            #expect(try await eventually { handler.closed(id) })
            #expect(try await eventually { handler.framesAlive == 0 })
        }
    }

    @Test func nothingFollowsTheCloseFrameOfAFailedConnection() async throws {
        try await withServer(maxMessageBytes: 2048) { server, handler in
            let failing = try await stalledReader(of: server)
            try #require(try await eventually { handler.opened.count == 1 })
            try await failing.send(String(repeating: "y", count: 5000))
            guard case .frame(let close) = await failing.read(within: .seconds(10)) else {
                Issue.record("no close frame for the over-size message")
                return
            }
            #expect(close.closeCode == 1009)
            let reading = try await readingClient(of: server, handler, count: 2)
            defer { reading.stop() }
            guard await broadcast(rounds: 1, through: reading) else { return }
            switch await failing.read(within: .milliseconds(500)) {
            case .frame(let frame):
                Issue.record("a frame (opcode \(frame.opcode)) came after the close frame")
            case .timedOut, .endOfStream:
                break
            }
        }
    }

    @Test func aBroadcastToASocketThatWasResetClosesItOnce() async throws {
        try await withServer { server, handler in
            let reset = try await stalledReader(of: server)
            try #require(try await eventually { handler.opened.count == 1 })
            let reading = try await readingClient(of: server, handler, count: 2)
            defer { reading.stop() }
            let resetID = handler.opened[0]
            reset.reset()
            guard await broadcast(rounds: 5, through: reading) else { return }
            #expect(try await eventually { handler.closed(resetID) })
            #expect(try await eventually { handler.framesAlive == 0 })
            #expect(handler.closeCount(resetID) == 1)
        }
    }
}

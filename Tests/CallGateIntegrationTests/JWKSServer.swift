import CallGateCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP server on 127.0.0.1 (port 0) that answers every GET with what the test set last:
/// the JWKS a gateway under test reads from `--jwt-jwks-url`. It counts the requests, and can
/// answer another status, any bytes, or late. Call `stop()` at the end.
final class JWKSServer: Sendable {
    /// What the next requests get.
    struct Answer: Sendable {
        var status: HTTPResponseStatus = .ok
        var body = Data()
        /// How long the server waits before it answers.
        var delay: Duration = .zero
    }

    /// The answer and the count, shared with the connections' handlers.
    private final class State: Sendable {
        let value: Mutex<(answer: Answer, requests: Int)>

        init(_ answer: Answer) {
            value = Mutex((answer, 0))
        }
    }

    private let channel: any Channel
    private let state: State

    /// The URL the gateway reads.
    var url: String { "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/jwks.json" }

    /// Requests answered or waiting so far.
    var requests: Int { state.value.withLock { $0.requests } }

    /// Starts serving `body` with 200.
    init(serving body: Data) async throws {
        let state = State(Answer(body: body))
        self.state = state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Answers the next requests with `answer`.
    func answer(_ answer: Answer) {
        state.value.withLock { $0.answer = answer }
    }

    /// Answers the next requests with 200 and `body`.
    func publish(_ body: Data) {
        answer(Answer(body: body))
    }

    func stop() async {
        try? await channel.close()
    }

    /// Answers each request head with the current answer, after its delay.
    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: State

        init(state: State) {
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let answer = state.value.withLock { state in
                state.requests += 1
                return state.answer
            }
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            loop.scheduleTask(in: .milliseconds(answer.delay.wholeMilliseconds)) {
                let context = bound.value
                var headers = HTTPHeaders()
                headers.add(name: "content-type", value: "application/json")
                headers.add(name: "content-length", value: String(answer.body.count))
                let head = HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers)
                context.write(self.wrapOutboundOut(.head(head)), promise: nil)
                context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
                context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}

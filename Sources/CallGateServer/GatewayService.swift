import CallGateCore
import CallGateProtocol
import Foundation
import LWS
import Logging

/// The gateway on its service thread: takes socket events and HTTP requests from libwebsockets,
/// runs them through the Core, and sends each reply and push.
///
/// All state is confined to the service thread of `context`; the only entry from other threads
/// is work they `post` to it (token checks coming back). Hence `@unchecked Sendable`.
final class GatewayService: @unchecked Sendable {
    let configuration: ServerConfiguration
    let context: LWSContext
    let core: GatewayCore
    let clock: any WallClock
    let tokens: TokenService
    let router: AdminRouter
    let logger: Logger
    /// Every open socket, connected or not, by the Core's connection id.
    var sockets: [ConnectionID: WebSocketConnection] = [:]
    /// Sockets in the order they opened, for the `connect` deadline sweep.
    var authQueue = AuthDeadlineQueue()
    /// Fires when the Core's earliest timer is due.
    lazy var coreTimer = context.makeTimer { [unowned self] in self.fireCoreTimers() }
    /// Fires when the oldest socket still waiting for `connect` runs out of time.
    lazy var authTimer = context.makeTimer { [unowned self] in self.closeUnauthenticated() }

    init(configuration: ServerConfiguration, context: LWSContext, tokens: TokenService, logger: Logger) {
        self.configuration = configuration
        self.context = context
        self.tokens = tokens
        self.logger = logger
        clock = SystemWallClock()
        let groups = InMemoryGroupStore()
        core = GatewayCore(configuration: configuration.core, clock: clock, groups: groups)
        router = AdminRouter(groups: groups, adminKey: configuration.adminKey, tokens: tokens)
    }

    /// Sends a Core outcome: the reply to the asking socket first, then every push.
    func send(_ outcome: CallOutcome, replyTo requestID: String, on connection: WebSocketConnection) {
        reply(outcome.reply, to: requestID, on: connection)
        deliver(outcome.deliveries)
    }

    /// Sends a Core result as the reply to one request: its value, or its error.
    func reply(_ result: Result<some Encodable, CoreError>, to requestID: String, on connection: WebSocketConnection) {
        switch result {
        case .success(let value):
            connection.send(OutboundFrame(ReplyFrame.success(id: requestID, result: value)))
        case .failure(let error):
            fail(connection, requestID: requestID, code: error.code, message: error.message)
        }
    }

    /// Encodes each push once and queues the same bytes to every recipient socket.
    func deliver(_ deliveries: [Delivery]) {
        for delivery in deliveries {
            let frame = OutboundFrame(delivery.push.encodedFrame())
            for id in delivery.connections {
                sockets[id]?.send(frame)
            }
        }
        armCoreTimer()
    }

    /// Replies with an error to a request (or to an unreadable frame when `requestID` is nil).
    func fail(_ connection: WebSocketConnection, requestID: String?, code: ErrorCode, message: String) {
        connection.send(OutboundFrame(ReplyFrame.failure(id: requestID, code: code, message: message)))
    }

    /// Points the Core timer at the Core's earliest deadline.
    func armCoreTimer() {
        guard let deadline = core.nextDeadline else {
            coreTimer.cancel()
            return
        }
        coreTimer.schedule(afterMicroseconds: max(0, deadline - clock.nowMillis()) * 1000)
    }

    private func fireCoreTimers() {
        deliver(core.fireDueTimers())
    }
}

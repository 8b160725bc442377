/// A port with nothing listening, for testing what clients say when the gateway is down.
extension TestGateway {
    /// The port of a gateway that was started and stopped again.
    static func unusedPort() async throws -> Int {
        let gateway = try await TestGateway()
        let port = gateway.port
        gateway.shutdown()
        return port
    }
}

import LWS
import Testing

/// Service-thread rules are checked, not only written down: in a debug build, touching a
/// context's service-thread state from another thread stops the process.
@Suite struct ServiceThreadTests {
    @Test func theTestThreadIsNotTheServiceThread() {
        let context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "test.v1"))
        #expect(!context.isServiceThread)
    }

    #if DEBUG
    @Test func assertingTheServiceThreadFromAnotherThreadStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let context = LWSContext(configuration: ContextConfiguration(listen: nil, protocolName: "test.v1"))
            context.assertOnServiceThread()
        }
    }
    #endif
}

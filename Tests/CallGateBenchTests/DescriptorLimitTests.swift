import Testing

@testable import CallGateBench

@Suite struct DescriptorLimitTests {
    @Test func enoughWhenTheSoftLimitCoversSocketsAndReserve() {
        #expect(DescriptorLimit(soft: 1_024, hard: 4_096).decision(forSockets: 900) == .enough)
    }

    @Test func raisesTheSoftLimitWhenTheHardOneIsEnough() {
        #expect(DescriptorLimit(soft: 1_024, hard: 20_000).decision(forSockets: 19_000) == .raise(to: 20_000))
    }

    @Test func saysHowManySocketsFitWhenTheHardLimitIsTooLow() {
        guard case .tooLow(let message) = DescriptorLimit(soft: 20_000, hard: 20_000).decision(forSockets: 19_990) else {
            Issue.record("expected tooLow")
            return
        }
        #expect(message.contains("at most 20000"))
        #expect(message.contains("--sockets 19936"))
    }

    @Test func theProcessLimitIsReadable() throws {
        let limit = DescriptorLimit.current()
        #expect(limit.soft > 0 && limit.soft <= limit.hard)
        try DescriptorLimit.ensure(forSockets: 10)
    }
}

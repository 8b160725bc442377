import Testing

@testable import CallGateBench

@Suite struct SourceAddressPlanTests {
    @Test func onePerFiveThousandSocketsByDefaultAndNoBindForOne() throws {
        #expect(try SourceAddressPlan(sockets: 5_000, addresses: nil, host: "127.0.0.1", ephemeralPorts: 28_232).addresses.isEmpty)
        #expect(try SourceAddressPlan(sockets: 50, addresses: 1, host: "127.0.0.1", ephemeralPorts: 28_232).address(for: 7) == nil)
        let plan = try SourceAddressPlan(sockets: 19_000, addresses: nil, host: "127.0.0.1", ephemeralPorts: 28_232)
        #expect(plan.addresses == ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"])
        let narrow = try SourceAddressPlan(sockets: 4_000, addresses: nil, host: "127.0.0.1", ephemeralPorts: 2_000)
        #expect(narrow.addresses.count == 3)
    }

    @Test func socketsGoRoundRobin() throws {
        let plan = try SourceAddressPlan(sockets: 10, addresses: 3, host: "127.0.0.1", ephemeralPorts: 28_232)
        #expect((0..<5).map { plan.address(for: $0) } == ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.1", "127.0.0.2"])
    }

    @Test func tooFewAddressesForThePortRangeIsAnError() {
        #expect(throws: BenchError.self) {
            try SourceAddressPlan(sockets: 19_000, addresses: 1, host: "127.0.0.1", ephemeralPorts: 10_000)
        }
        #expect(throws: BenchError.self) {
            try SourceAddressPlan(sockets: 10, addresses: 255, host: "127.0.0.1", ephemeralPorts: 10_000)
        }
    }

    @Test func aNonLoopbackHostIsNotBound() throws {
        let plan = try SourceAddressPlan(sockets: 100, addresses: nil, host: "gateway.example", ephemeralPorts: 28_232)
        #expect(plan.addresses.isEmpty)
        #expect(plan.address(for: 3) == nil)
        #expect(throws: BenchError.self) {
            try SourceAddressPlan(sockets: 100, addresses: 2, host: "localhost", ephemeralPorts: 28_232)
        }
    }

    @Test func theKernelsPortRangeIsRead() {
        #expect(SourceAddressPlan.ephemeralPortCount() > 1_000)
        #expect(SourceAddressPlan.ephemeralPortCount(rangeFile: "/nonexistent") == 28_232)
    }
}

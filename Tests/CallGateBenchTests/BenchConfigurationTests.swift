import Testing

@testable import CallGateBench

@Suite struct BenchConfigurationTests {
    @Test func defaultsFollowTheScenario() {
        #expect(BenchConfiguration(scenario: .ring, jwtSecret: "s").rate == 100)
        #expect(BenchConfiguration(scenario: .group, jwtSecret: "s").rate == 10)
        #expect(BenchConfiguration(scenario: .idle, jwtSecret: "s").sockets == 1_000)
    }

    @Test func usedSocketsArePairsOrWholeGroups() {
        #expect(BenchConfiguration(scenario: .ring, jwtSecret: "s", sockets: 101).usedSockets == 100)
        #expect(BenchConfiguration(scenario: .group, jwtSecret: "s", sockets: 107, groupSize: 10).usedSockets == 100)
        #expect(BenchConfiguration(scenario: .idle, jwtSecret: "s", sockets: 7).usedSockets == 7)
        #expect(ChurnDriver.stableSockets(of: 10) == 4)
    }

    @Test func groupNeedsAnAdminKeyAndAGroupOfTwo() throws {
        #expect(throws: BenchError.self) { try BenchConfiguration(scenario: .group, jwtSecret: "s").validate() }
        #expect(throws: BenchError.self) {
            try BenchConfiguration(scenario: .group, jwtSecret: "s", adminKey: "k", groupSize: 1).validate()
        }
        try BenchConfiguration(scenario: .group, jwtSecret: "s", adminKey: "k", sockets: 20, groupSize: 5).validate()
    }

    @Test(arguments: [
        BenchConfiguration(scenario: .ring, jwtSecret: "s", sockets: 1),
        BenchConfiguration(scenario: .ring, port: 0, jwtSecret: "s"),
        BenchConfiguration(scenario: .ring, jwtSecret: ""),
        BenchConfiguration(scenario: .ring, jwtSecret: "s", rate: 0),
        BenchConfiguration(scenario: .idle, jwtSecret: "s", duration: 0),
        BenchConfiguration(scenario: .churn, jwtSecret: "s", sockets: 3),
        BenchConfiguration(scenario: .ring, jwtSecret: "s", alsoPorts: [8081, 70_000]),
    ])
    func badValuesAreRefused(_ configuration: BenchConfiguration) {
        #expect(throws: BenchError.self) { try configuration.validate() }
    }

    @Test func drainNeedsAnotherGatewayAndMovesToTheNextInTurn() throws {
        #expect(throws: BenchError.self) { try BenchConfiguration(scenario: .drain, jwtSecret: "s").validate() }
        let settings = BenchConfiguration(scenario: .drain, port: 9001, jwtSecret: "s", sockets: 7, alsoPorts: [9002, 9003])
        try settings.validate()
        #expect(settings.usedSockets == 7)
        #expect(settings.rate == 0)
        #expect(settings.port(after: 9001) == 9002)
        #expect(settings.port(after: 9003) == 9001)
        #expect(settings.port(after: 1234) == 9001, "a port not given starts over at --port")
    }

    @Test func socketsTakeTheGatewaysInTurnSoThatARingPairSpansTwo() {
        let cluster = BenchConfiguration(scenario: .ring, port: 8081, jwtSecret: "s", alsoPorts: [8082])
        #expect((0..<4).map(cluster.port(for:)) == [8081, 8082, 8081, 8082])
        let single = BenchConfiguration(scenario: .ring, port: 8081, jwtSecret: "s")
        #expect((0..<3).map(single.port(for:)) == [8081, 8081, 8081])
    }

    @Test func usersAndGroupsAreNamedByIndex() {
        #expect(BenchConfiguration.uid(7) == "u7")
        #expect(BenchConfiguration.groupID(3) == "bench-g3")
    }
}

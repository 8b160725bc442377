import Testing

@testable import CallGateBench

@Suite struct SummaryTableTests {
    @Test func oneRowPerMetricWithPercentilesAndRate() {
        let text = SummaryTable.render(SampleResult.ring())
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("callgate-bench ring [a <label>] against 127.0.0.1:9000: 1000 sockets"))
        #expect(lines.contains { $0.hasPrefix("metric") && $0.contains("p99.9") })
        let ring = lines.first { $0.hasPrefix("ring ") }
        #expect(ring?.split(separator: " ").map(String.init) == ["ring", "1000", "0.799", "1.199", "1.289", "1.298", "1.299", "100.0"])
        #expect(lines.contains { $0.hasPrefix("connect ") && $0.hasSuffix("2000.0") })
        #expect(text.contains("errors: none"))
        #expect(text.contains("server RSS: 30.0 MiB -> 40.0 MiB, 10.2 KiB per socket"))
        #expect(!text.contains("never-shown"))
    }

    @Test func errorsAreListedByCode() {
        let text = SummaryTable.render(SampleResult.ring(errors: ["STALLED": 2, "ERR_BAD_REQUEST": 1], withServer: false))
        #expect(text.contains("errors: ERR_BAD_REQUEST 1, STALLED 2"))
        #expect(!text.contains("server RSS"))
    }
}

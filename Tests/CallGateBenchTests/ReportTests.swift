import Foundation
import Testing

@testable import CallGateBench

@Suite struct ReportTests {
    @Test func theJSONFollowsTheDocumentedSchema() throws {
        let data = try ResultFiles.json(SampleResult.ring(errors: ["STALLED": 1]))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["scenario", "label", "config", "metrics", "rates", "errors", "counts", "durations", "server"])
        #expect(json["scenario"] as? String == "ring")
        let metrics = try #require(json["metrics"] as? [String: [String: Any]])
        #expect(Set(metrics.keys) == ["connect", "ring", "accept", "end"])
        #expect(Set(metrics["ring"]!.keys) == ["count", "p50", "p90", "p99", "p999", "max", "unit"])
        #expect(metrics["ring"]?["unit"] as? String == "ms")
        let rates = try #require(json["rates"] as? [String: Double])
        #expect(rates["callsPerSecond"] == 100)
        #expect(rates["deliveriesPerSecond"] == 100)
        #expect((json["errors"] as? [String: Int])?["STALLED"] == 1)
        let server = try #require(json["server"] as? [String: Any])
        #expect(Set(server.keys) == ["rssBeforeBytes", "rssAfterBytes", "bytesPerSocket"])
        let config = try #require(json["config"] as? [String: Any])
        #expect(config["sockets"] as? Int == 1_000)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("never-shown"))
    }

    @Test func withoutServerPidThereIsNoServerObject() throws {
        let data = try ResultFiles.json(SampleResult.ring(withServer: false))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["server"] == nil)
    }

    @Test func theReportIsSelfContained() {
        let html = HTMLReport.render(SampleResult.ring())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        #expect(html.components(separatedBy: "<polyline").count - 1 == 4)
        #expect(html.contains("a &lt;label&gt;"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("src="))
        #expect(!html.contains("href="))
        #expect(!html.contains("@import"))
        let addresses = html.components(separatedBy: "http").count - 1
        #expect(addresses == 2, "only the SVG namespaces name a URL")
        #expect(!html.contains("never-shown"))
    }

    @Test func thePlotPutsTheTailOnALogScale() {
        #expect(PercentilePlot.position(0) == 0)
        #expect(abs(PercentilePlot.position(90) - 1) < 1e-9)
        #expect(abs(PercentilePlot.position(99.9) - 3) < 1e-9)
        #expect(PercentilePlot.position(100) == PercentilePlot.maxNines)
        #expect(PercentilePlot.percentLabel(0) == "0%")
        #expect(PercentilePlot.percentLabel(2) == "99%")
        #expect(PercentilePlot.percentLabel(4) == "99.99%")
        #expect(PercentilePlot.niceCeiling(3.2) == 5)
        #expect(PercentilePlot.niceCeiling(0.07) == 0.1)
        #expect(PercentilePlot.niceCeiling(20) == 20)
    }

    @Test func anEmptyPlotSaysSo() {
        let svg = PercentilePlot.svg([PlotSeries(name: "ring", points: [])])
        #expect(svg.contains("no latencies recorded"))
        #expect(!svg.contains("<polyline"))
    }
}

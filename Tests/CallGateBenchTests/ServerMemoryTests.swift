import Foundation
import Testing

@testable import CallGateBench

@Suite struct ServerMemoryTests {
    @Test func readsVmRSSInBytes() {
        let status = "Name:\tcallgate\nVmPeak:\t  900 kB\nVmRSS:\t   30120 kB\nThreads:\t4\n"
        #expect(ServerMemory.parseResidentBytes(status: status) == 30_120 * 1_024)
        #expect(ServerMemory.parseResidentBytes(status: "Name:\tx\n") == nil)
    }

    @Test func readsThisProcessAndNotAMissingOne() {
        #expect((ServerMemory.residentBytes(pid: getpid()) ?? 0) > 0)
        #expect(ServerMemory.residentBytes(pid: Int32.max) == nil)
    }

    @Test func bytesPerSocketMayBeNegative() {
        #expect(ServerMemoryReport(rssBeforeBytes: 1_000, rssAfterBytes: 3_000, sockets: 10).bytesPerSocket == 200)
        #expect(ServerMemoryReport(rssBeforeBytes: 3_000, rssAfterBytes: 1_000, sockets: 10).bytesPerSocket == -200)
        #expect(ServerMemoryReport(rssBeforeBytes: 0, rssAfterBytes: 1_000, sockets: 0).bytesPerSocket == 0)
    }
}

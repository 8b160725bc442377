@testable import LWS
import Testing

@Suite("Liveness sweep: one bucket per tick")
struct LivenessSweepTests {
    @Test func everyIdIsVisitedOncePerRoundOfTicks() {
        var sweep = LivenessSweep(bucketCount: 4)
        for id in UInt64(1)...10 { sweep.insert(id) }
        var visits: [UInt64: Int] = [:]
        for _ in 0..<4 {
            sweep.visitNextBucket { id in
                visits[id, default: 0] += 1
                return true
            }
        }
        #expect(visits.count == 10)
        #expect(visits.values.allSatisfy { $0 == 1 })
        #expect(sweep.count == 10)
    }

    @Test func aTickVisitsOnlyOneBucket() {
        var sweep = LivenessSweep(bucketCount: 4)
        for id in UInt64(0)..<100 { sweep.insert(id) }
        var visited: [UInt64] = []
        sweep.visitNextBucket { id in
            visited.append(id)
            return true
        }
        #expect(visited.count == 25)
        #expect(visited.allSatisfy { $0 % 4 == 0 })
    }

    @Test func idsTheVisitorDoesNotKeepAreGone() {
        var sweep = LivenessSweep(bucketCount: 2)
        for id in UInt64(1)...6 { sweep.insert(id) }
        for _ in 0..<2 {
            sweep.visitNextBucket { $0 % 3 != 0 }
        }
        #expect(sweep.count == 4)
        var left: [UInt64] = []
        for _ in 0..<2 {
            sweep.visitNextBucket { id in
                left.append(id)
                return true
            }
        }
        #expect(left.sorted() == [1, 2, 4, 5])
    }
}

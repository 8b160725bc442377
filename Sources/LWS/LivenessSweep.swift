/// Connection ids spread over a fixed number of buckets, visited one bucket per tick.
///
/// An id goes to bucket `id % bucketCount`, so sockets that connect in a burst still spread
/// evenly. A tick visits only the next bucket and keeps the ids its visitor keeps: the cost of
/// a tick is the size of one bucket, and closed sockets leave lazily at their next visit, with
/// nothing to do at close time. Every id is visited once per `bucketCount` ticks. Pure; the
/// owner runs it on its service thread.
struct LivenessSweep {
    private var buckets: [[UInt64]]
    private var next = 0
    /// Ids held, including those of sockets closed since their last visit.
    private(set) var count = 0

    init(bucketCount: Int) {
        precondition(bucketCount > 0)
        buckets = Array(repeating: [], count: bucketCount)
    }

    var bucketCount: Int { buckets.count }

    mutating func insert(_ id: UInt64) {
        buckets[Int(id % UInt64(buckets.count))].append(id)
        count += 1
    }

    /// Visits every id of the next bucket; an id stays only if `visit` returns true.
    mutating func visitNextBucket(_ visit: (UInt64) -> Bool) {
        let visited = buckets[next]
        let kept = visited.filter(visit)
        buckets[next] = kept
        count -= visited.count - kept.count
        next = (next + 1) % buckets.count
    }
}

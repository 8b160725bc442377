import Foundation
import GRDB

/// Another connection to an SQLite file that holds its write lock (`BEGIN IMMEDIATE`) until
/// released, on a thread of its own: what an operator's `sqlite3` shell in an open transaction,
/// or a long backup, does to the gateway's store.
final class WriteLockHolder: @unchecked Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    private init() {}

    /// Returns once the lock on the database at `path` is held.
    static func hold(_ path: String) async throws -> WriteLockHolder {
        let holder = WriteLockHolder()
        let queue = try DatabaseQueue(path: path)
        try await withCheckedThrowingContinuation { (locked: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    try queue.inDatabase { db in
                        try db.execute(sql: "BEGIN IMMEDIATE")
                        locked.resume()
                        holder.release.wait()
                        try db.execute(sql: "ROLLBACK")
                    }
                } catch {
                    locked.resume(throwing: error)
                }
                holder.finished.signal()
            }.start()
        }
        return holder
    }

    /// Rolls back and closes the connection; returns once it is done.
    func unlock() async {
        release.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.finished.wait()
                done.resume()
            }
        }
    }
}

import CallGateStoreSQLite
import Foundation

/// Runs `body` with the path of a database file in a fresh directory, deleting the directory
/// (database, -wal and -shm files) afterwards whatever happens.
func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("callgate-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory.appendingPathComponent("calls.sqlite").path)
}

/// Runs `body` with a store on a fresh temporary file, and that file's path (to reopen it).
func withStore<T>(_ body: (SQLiteCallLogStore, String) throws -> T) throws -> T {
    try withDatabasePath { path in
        try body(try SQLiteCallLogStore(path: path, durability: .processCrash), path)
    }
}

import CallGateCore
import StoreTestSupport
import Foundation
import GRDB
import Testing

@testable import CallGateStoreSQLite

/// Opening files: a new one is migrated, an existing one is reopened as it is, and every file
/// that cannot be used is a clear error rather than a crash.
struct OpeningTests {
    @Test func migratesAnEmptyFile() throws {
        try withStore { store, _ in
            let (tables, migrations) = try store.pool.read { db in
                (
                    try [
                        "calls", "call_participants", "call_members", "recording_urls", "call_groups", "write_probe",
                        "missed_calls", "missed_call_counts",
                    ].filter { try db.tableExists($0) },
                    try CallLogSchema.migrator.completedMigrations(db)
                )
            }
            #expect(tables == [
                "calls", "call_members", "recording_urls", "call_groups", "write_probe", "missed_calls", "missed_call_counts",
            ])
            #expect(migrations.count == 7)
            #expect(try store.lastCallID() == 0)
            #expect(try store.openCalls().isEmpty)
            #expect(try store.groups().isEmpty)
        }
    }

    @Test func reopensAnExistingFileWithItsData() throws {
        try withDatabasePath { path in
            let record = TestCalls.direct(7, from: "alice", to: "bob", status: .ongoing)
            do {
                let store = try SQLiteCallLogStore(path: path)
                try store.apply([.call(record), .putGroup(GroupRecord(guid: "g", name: "G", members: ["alice"]))])
            }
            let reopened = try SQLiteCallLogStore(path: path)
            #expect(try reopened.openCalls() == [record])
            #expect(try reopened.groups().map(\.guid) == ["g"])
            #expect(try reopened.pool.read { try CallLogSchema.migrator.completedMigrations($0) }.count == 7)
        }
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        try withDatabasePath { path in
            let missing = (path as NSString).deletingLastPathComponent + "/nowhere/calls.sqlite"
            let error = #expect(throws: SQLiteStoreError.self) { try SQLiteCallLogStore(path: missing) }
            #expect(error?.kind == .open)
            #expect(error?.message.contains("does not exist") == true)
        }
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        try withDatabasePath { path in
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SQLiteStoreError.self) { try SQLiteCallLogStore(path: path) }
            #expect(error?.kind == .open)
            #expect(error?.message.contains("not an SQLite database") == true)
        }
    }

    @Test func aSchemaFromANewerVersionIsRefused() throws {
        try withDatabasePath { path in
            do {
                let store = try SQLiteCallLogStore(path: path)
                try store.pool.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99: from the future')") }
            }
            let error = #expect(throws: SQLiteStoreError.self) { try SQLiteCallLogStore(path: path) }
            #expect(error?.kind == .schema)
            #expect(error?.message.contains("newer") == true)
        }
    }

    @Test(arguments: [
        (SQLiteCallLogStore.Durability.processCrash, 1),
        (SQLiteCallLogStore.Durability.powerLoss, 2),
    ])
    func durabilityChoosesSynchronousInWALMode(durability: SQLiteCallLogStore.Durability, synchronous: Int) throws {
        try withDatabasePath { path in
            let store = try SQLiteCallLogStore(path: path, durability: durability)
            let (mode, level, foreignKeys) = try store.pool.write { db in
                (
                    try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                    try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                    try Bool.fetchOne(db, sql: "PRAGMA foreign_keys")
                )
            }
            #expect(mode == "wal")
            #expect(level == synchronous)
            #expect(foreignKeys == true)
        }
    }

    @Test func isWritableIsFalseWhileAnotherConnectionHoldsTheWriteLock() throws {
        try withDatabasePath { path in
            let store = try SQLiteCallLogStore(path: path, busyTimeout: 0.05)
            #expect(store.isWritable())
            let other = try DatabaseQueue(path: path)
            try other.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                #expect(!store.isWritable())
                try db.execute(sql: "ROLLBACK")
            }
            #expect(store.isWritable())
        }
    }
}

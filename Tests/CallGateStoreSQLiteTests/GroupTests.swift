import CallGateCore
import Testing

@testable import CallGateStoreSQLite

/// Groups kept beside the calls: put, replace, delete, and read back after a reopen.
struct GroupTests {
    @Test func groupsArePutReplacedDeletedAndReopened() throws {
        try withDatabasePath { path in
            let team = GroupRecord(guid: "team", name: "Team", icon: "https://x/t.png", members: ["c", "a", "b"])
            let renamed = GroupRecord(guid: "team", name: "Team 2", members: ["b", "d"])
            let ops = GroupRecord(guid: "ops", name: "Ops", members: [])
            do {
                let store = try SQLiteCallLogStore(path: path)
                try store.apply([.putGroup(team), .putGroup(ops), .putGroup(GroupRecord(guid: "x", name: "X", members: ["a"]))])
                try store.apply([.putGroup(renamed), .deleteGroup("x"), .deleteGroup("never-existed")])
            }
            let reopened = try SQLiteCallLogStore(path: path)
            #expect(try reopened.groups() == [ops, renamed])
        }
    }

    @Test func membersKeepTheirOrder() throws {
        try withStore { store, _ in
            let group = GroupRecord(guid: "g", name: "G", members: (0..<100).reversed().map { "u\($0)" })
            try store.apply([.putGroup(group)])
            #expect(try store.groups().first?.members == group.members)
        }
    }
}

import CallGateCore
import Foundation
import PostgresNIO

/// What the nodes of a cluster share through PostgreSQL: call ids given out in blocks, and the
/// open calls of a node that died, taken over by a survivor.
extension PostgresCallLogStore: ClusterStore {
    /// The advisory lock every reservation holds: "Call IDs" in ASCII.
    static let callIDsLockKey: Int64 = 0x4361_6C6C_2049_4473

    /// A block of 64 call ids no other node gets, all above the last call id saved (a gateway
    /// without cluster mode on the same database raises that without drawing from `call_ids`).
    /// When the sequence is behind, it is moved past the last call id and the block starts there.
    /// Reservations hold one advisory lock: a `setval` racing another node's `nextval` could
    /// otherwise hand out a block that overlaps one just drawn.
    public func reserveCallIDs() throws -> ClosedRange<Int64> {
        try blocking { [self] in
            try await transaction("reserving call ids") { [self] connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.callIDsLockKey))", logger: logger)
                let rows = try await connection.query("""
                    WITH drawn AS MATERIALIZED (SELECT nextval('call_ids') AS id),
                    block AS MATERIALIZED (
                        SELECT CASE WHEN d.id > s.last THEN d.id ELSE setval('call_ids', s.last + 1) END AS first
                        FROM drawn AS d, (SELECT coalesce(max(last_call_id), 0) AS last FROM store_state) AS s)
                    SELECT first, first + 63 FROM block
                    """, logger: logger).collect()
                guard let row = rows.first else {
                    throw PostgresStoreError(kind: .write, description: "PostgreSQL at \(location): reserving call ids gave no block")
                }
                let (first, last) = try row.decode((Int64, Int64).self)
                return first...last
            }
        }
    }

    /// Moves the open calls of `deadNode` to `node`, each under its epoch raised by one, and
    /// returns them oldest first; a call another survivor took first is not among them. `node`
    /// may be `deadNode`: a node restarting under its own id takes its calls back under new
    /// epochs. One transaction: the calls are taken exactly when their records are returned.
    public func takeOverOpenCalls(of deadNode: String, by node: String) throws -> [OwnedCall] {
        let owned = try blocking { [self] in
            try await transaction("taking over the open calls of node \(deadNode)") { [self] connection in
                let decoder = JSONDecoder()
                var records: [CallLogRecord] = []
                var epochs: [Int64] = []
                var recorded: [Int64] = []
                for try await (id, hasRecording, json, participants, steps, epoch) in try await connection.query("""
                    WITH taken AS (
                        UPDATE calls SET owner_node = \(node), owner_epoch = owner_epoch + 1
                        WHERE owner_node = \(deadNode) AND status IN ('initiated', 'ongoing')
                        RETURNING id, has_recording, record, participants, steps, owner_epoch)
                    SELECT id, has_recording, record::text, participants::text, steps, owner_epoch FROM taken ORDER BY id
                    """, logger: logger).decode((Int64, Bool, String, String, String?, Int64).self) {
                    records.append(try Self.record(json, participants: participants, steps: steps, decoder: decoder))
                    epochs.append(epoch)
                    if hasRecording {
                        recorded.append(id)
                    }
                }
                try await attachRecordingURLs(of: recorded, to: &records, on: connection)
                return zip(records, epochs).map { OwnedCall(record: $0, epoch: $1) }
            }
        }
        ownedEpochs.own(Dictionary(owned.map { ($0.record.id, $0.epoch) }) { _, last in last })
        return owned
    }

    /// Which of `ids` another node owns now, or this node under another epoch than this process
    /// holds them (taken over): a node back from losing Redis for longer than its lease lets
    /// these go, and this store forgets them. A call whose row is not written yet is not among
    /// them.
    public func callIDsOwnedElsewhere(than node: String, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        let epochs = ids.map { ownedEpochs.epoch(of: $0) }
        let taken = try blocking { [self] in
            try await reading("reading which calls of node \(node) were taken over") { [self] connection in
                var taken: Set<Int64> = []
                for try await id in try await connection.query("""
                    SELECT c.id FROM calls AS c JOIN unnest(\(ids)::bigint[], \(epochs)::bigint[]) AS k (id, epoch) ON c.id = k.id
                    WHERE c.owner_node <> \(node) OR c.owner_epoch <> k.epoch
                    """, logger: logger).decode(Int64.self) {
                    taken.insert(id)
                }
                return taken
            }
        }
        ownedEpochs.forget(taken)
        return taken
    }

    /// The group `guid` as saved now, nil when there is none: another node changed it.
    public func group(_ guid: String) throws -> GroupRecord? {
        try blocking { [self] in
            try await reading("reading group \(guid)") { [self] connection in
                for try await (name, icon, members) in try await connection.query(
                    "SELECT name, icon, members::text FROM call_groups WHERE guid = \(guid)", logger: logger
                ).decode((String, String?, String).self) {
                    return GroupRecord(
                        guid: guid, name: name, icon: icon,
                        members: try JSONDecoder().decode([String].self, from: Data(members.utf8)))
                }
                return nil
            }
        }
    }
}

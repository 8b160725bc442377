import CallGateCore
import Logging
import PostgresNIO

/// Copies another store's rows into an empty PostgreSQL database in one transaction: what
/// `callgate migrate-sqlite` runs. The rows arrive as JSON batches, one object per row keyed by
/// column name, with the SQLite store's columns and units (times in Unix seconds for calls and
/// milliseconds for the outbox, booleans as 0 and 1); PostgreSQL's `json_to_recordset` turns them
/// into this schema's types. Nothing is visible until everything is in: a copy that fails leaves
/// the database as empty as it found it.
public struct PostgresImport {
    /// Why a copy did not happen: the database already holds rows of its own, which a copy would
    /// mix with the source's (call ids would collide), or a table did not get every row read.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    private let connection: PostgresConnection
    private let logger: Logger

    /// Connects to `location` (its schema current: `PostgresCallLogStore.migrate` first), checks
    /// it holds no calls, groups or webhooks,
    /// locks the tables against writers, and runs `body` (which inserts the batches) in one
    /// transaction with `finish` after it; committed when `body` returns and every table holds
    /// the `expected` number of rows. `lastIDs` are the source's highest ids ever given out
    /// (`calls`, `webhook_deliveries`), which the database carries on from. Returns the number
    /// of rows each table holds afterwards, `call_members` included.
    public static func copy(
        into location: PostgresLocation, logger: Logger, expected: [StoreTable: Int], lastIDs: [StoreTable: Int64],
        _ body: (PostgresImport) async throws -> Void
    ) async throws -> [(table: String, rows: Int)] {
        try await location.withClient(logger: logger) { client in
            try await client.withConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    let copy = PostgresImport(connection: connection, logger: logger)
                    try await copy.checkEmpty()
                    try await body(copy)
                    try await copy.finish(lastCallID: lastIDs[.calls] ?? 0, lastDeliveryID: lastIDs[.webhookDeliveries] ?? 0)
                    let counts = try await copy.counts()
                    for (table, rows) in expected where counts.first(where: { $0.table == table.rawValue })?.rows != rows {
                        throw Refusal(description: "\(table.rawValue): \(rows) rows read but not as many written; nothing was copied")
                    }
                    return counts
                }
            }
        }
    }

    /// Inserts one batch of `table`'s rows.
    public func insert(_ table: StoreTable, json: String) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: table.insert, binds: binds(json)), logger: logger)
    }

    private func checkEmpty() async throws {
        let tables = ["calls", "call_groups", "webhook_endpoints", "webhook_messages"]
        try await connection.query(
            PostgresQuery(unsafeSQL: "LOCK TABLE \(tables.joined(separator: ", ")) IN EXCLUSIVE MODE"), logger: logger)
        let held = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(tables.map { "(SELECT count(*) FROM \($0))" }.joined(separator: " + "))
            """), logger: logger).collect().first?.decode(Int.self) ?? 0
        guard held == 0 else {
            throw Refusal(description: """
                the PostgreSQL database already holds \(held) calls, groups or webhook rows: \
                copy into an empty database (a copy never merges two stores)
                """)
        }
    }

    /// Derives `call_members` (each call's distinct participant uids, as a save writes them),
    /// carries the last call id over and starts the cluster's call id blocks (`call_ids`) past
    /// it, and moves the delivery id sequence past every id the source gave out (a pruned
    /// delivery's id is not given again).
    private func finish(lastCallID: Int64, lastDeliveryID: Int64) async throws {
        try await connection.query("""
            INSERT INTO call_members (uid, call_id)
            SELECT DISTINCT p ->> 'uid', c.id FROM calls AS c CROSS JOIN LATERAL jsonb_array_elements(c.participants) AS p
            """, logger: logger)
        try await connection.query("""
            UPDATE store_state SET last_call_id = greatest(last_call_id, \(lastCallID), (SELECT coalesce(max(id), 0) FROM calls))
            """, logger: logger)
        try await connection.query("SELECT setval('call_ids', last_call_id + 1, false) FROM store_state", logger: logger)
        try await connection.query("""
            SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'id'), greatest(max(id), \(lastDeliveryID)))
            FROM webhook_deliveries HAVING greatest(max(id), \(lastDeliveryID)) > 0
            """, logger: logger)
    }

    private func counts() async throws -> [(table: String, rows: Int)] {
        var counts: [(table: String, rows: Int)] = []
        for table in StoreTable.allCases.map(\.rawValue) + ["call_members"] {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger
            ).collect().first?.decode(Int.self) ?? 0
            counts.append((table: table, rows: rows))
        }
        return counts
    }

    private func binds(_ json: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(json)
        return binds
    }
}

extension StoreTable {
    /// The statement that inserts a batch (`$1`, a JSON array of row objects).
    fileprivate var insert: String {
        switch self {
        case .calls: """
            INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, receiver_type, receiver_id,
                               initiated_at, started_at, ended_at, has_recording, record, participants, steps)
            SELECT id, session_id, category, call_type, status, initiator_uid, receiver_type, receiver_id,
                   to_timestamp(initiated_at), to_timestamp(started_at), to_timestamp(ended_at), has_recording <> 0,
                   record::json, participants::jsonb, steps
            FROM json_to_recordset($1::json) AS r (
                id bigint, session_id text, category text, call_type text, status text, initiator_uid text,
                receiver_type text, receiver_id text, initiated_at bigint, started_at bigint, ended_at bigint,
                has_recording bigint, record text, participants text, steps text)
            """
        case .recordingURLs: """
            INSERT INTO recording_urls (call_id, rid, url)
            SELECT call_id, rid, url FROM json_to_recordset($1::json) AS r (call_id bigint, rid text, url text)
            """
        case .missedCalls: """
            INSERT INTO missed_calls (call_id, uid, seen_at)
            SELECT call_id, uid, callgate_time(seen_at)
            FROM json_to_recordset($1::json) AS r (call_id bigint, uid text, seen_at bigint)
            """
        case .missedCallCounts: """
            INSERT INTO missed_call_counts (uid, unseen, revision, unseen_from)
            SELECT uid, unseen, revision, unseen_from
            FROM json_to_recordset($1::json) AS r (uid text, unseen integer, revision bigint, unseen_from bigint)
            """
        case .groups: """
            INSERT INTO call_groups (guid, name, icon, members)
            SELECT guid, name, icon, members::jsonb
            FROM json_to_recordset($1::json) AS r (guid text, name text, icon text, members text)
            """
        case .webhookEndpoints: """
            INSERT INTO webhook_endpoints (id, url, secrets, event_types, enabled, disabled_reason, created_at)
            SELECT id, url, secrets::jsonb, event_types::jsonb, enabled <> 0, disabled_reason, callgate_time(created_at)
            FROM json_to_recordset($1::json) AS r (
                id text, url text, secrets text, event_types text, enabled bigint, disabled_reason text, created_at bigint)
            """
        case .webhookMessages: """
            INSERT INTO webhook_messages (id, type, session_id, created_at, body)
            SELECT id, type, session_id, callgate_time(created_at), body
            FROM json_to_recordset($1::json) AS r (id text, type text, session_id text, created_at bigint, body text)
            """
        case .webhookDeliveries: """
            INSERT INTO webhook_deliveries (
                id, message_id, endpoint_id, session_id, status, next_attempt_at, finished_at, failure_reason)
            SELECT id, message_id, endpoint_id, session_id, status, callgate_time(next_attempt_at), callgate_time(finished_at),
                failure_reason
            FROM json_to_recordset($1::json) AS r (
                id bigint, message_id text, endpoint_id text, session_id text, status text, next_attempt_at bigint,
                finished_at bigint, failure_reason text)
            """
        case .webhookAttempts: """
            INSERT INTO webhook_attempts (delivery_id, at, duration_ms, status_code, error, status, next_attempt_at)
            SELECT delivery_id, callgate_time(at), duration_ms, status_code, error, status, callgate_time(next_attempt_at)
            FROM ROWS FROM (json_to_recordset($1::json) AS (
                delivery_id bigint, at bigint, duration_ms bigint, status_code integer, error text, status text,
                next_attempt_at bigint)) WITH ORDINALITY AS r
            ORDER BY r.ordinality
            """
        }
    }
}

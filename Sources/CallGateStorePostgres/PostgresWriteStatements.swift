import CallGateProtocol
import Logging
import PostgresNIO

/// The SQL of one of the store's write statements; `$n` are the batch's arrays, bound in order.
protocol PostgresWriteSQL: Sendable {
    static var sql: String { get }
}

/// A write statement as a PostgresNIO prepared statement: prepared once per connection (named
/// after `Kind`) and then only bound and executed, so the server parses and plans the batch's
/// statements once per connection rather than once per batch.
struct PostgresWrite<Kind: PostgresWriteSQL>: PostgresPreparedStatement {
    typealias Row = ()
    static var sql: String { Kind.sql }
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws {}
}

/// Upserts a batch of calls, one array per column, and returns the ids of the rows it wrote.
/// PostgresNIO has no arrays of optionals: a missing receiver is an empty type and a missing time
/// `$15`, both turned back into NULL here. `$16` is the owner node (cluster mode; empty for
/// none), written on every row, `$17` the epoch this node owns each call under, and `$18` each
/// call's steps (empty for none). The owner's
/// fence (cluster mode; one process owns its database and writes every row): a row another
/// node owns now, or that this node owns under another epoch (a survivor
/// took the call over, or a later run of this node took it back), is left as it is and its id
/// is not returned, so a node that lost a call cannot write it back.
enum UpsertCalls: PostgresWriteSQL {
    static let sql = """
        INSERT INTO calls (id, session_id, category, call_type, status, initiator_uid, receiver_type, receiver_id,
                           initiated_at, started_at, ended_at, has_recording, record, participants, owner_node,
                           owner_epoch, steps)
        SELECT id, session_id, category, call_type, status, initiator_uid, NULLIF(receiver_type, ''),
               CASE WHEN receiver_type = '' THEN NULL ELSE receiver_id END, to_timestamp(initiated_at),
               to_timestamp(NULLIF(started_at, $15)), to_timestamp(NULLIF(ended_at, $15)),
               has_recording, record::json, participants::jsonb, NULLIF($16::text, ''), epoch, NULLIF(steps, '')
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                    $9::bigint[], $10::bigint[], $11::bigint[], $12::boolean[], $13::text[], $14::text[], $17::bigint[],
                    $18::text[])
            AS r (id, session_id, category, call_type, status, initiator_uid, receiver_type, receiver_id,
                  initiated_at, started_at, ended_at, has_recording, record, participants, epoch, steps)
        ON CONFLICT (id) DO UPDATE SET
            session_id = excluded.session_id, category = excluded.category, call_type = excluded.call_type,
            status = excluded.status, initiator_uid = excluded.initiator_uid,
            receiver_type = excluded.receiver_type, receiver_id = excluded.receiver_id,
            initiated_at = excluded.initiated_at, started_at = excluded.started_at, ended_at = excluded.ended_at,
            has_recording = excluded.has_recording, record = excluded.record, participants = excluded.participants,
            owner_node = excluded.owner_node, owner_epoch = excluded.owner_epoch, steps = excluded.steps
        WHERE $16::text = '' OR calls.owner_node IS NULL
           OR (calls.owner_node = excluded.owner_node AND calls.owner_epoch = excluded.owner_epoch)
        RETURNING id
        """
}

/// Deletes the member rows of calls `$1` that are not among the pairs (`$2` uid, `$3` call),
/// and the missed calls of those members (a call outside a user's log is not theirs to see);
/// returns the uid of each unseen missed call it deleted. The counts of the users with missed
/// calls of these calls are locked first, in uid order, as `markCallsSeen` locks a count before
/// its missed calls: the other order would deadlock with it. A new call has none to lock.
enum KeepOnlyMembers: PostgresWriteSQL {
    static let sql = """
        WITH locked AS (
            SELECT n.uid FROM missed_call_counts AS n
            WHERE n.uid IN (SELECT x.uid FROM missed_calls AS x WHERE x.call_id = ANY ($1::bigint[]))
            ORDER BY n.uid FOR UPDATE OF n),
        gone AS (
            DELETE FROM call_members AS m WHERE m.call_id = ANY ($1::bigint[])
            AND NOT EXISTS (
                SELECT 1 FROM unnest($2::text[], $3::bigint[]) AS k (uid, call_id) WHERE k.uid = m.uid AND k.call_id = m.call_id)
            AND (SELECT count(*) FROM locked) >= 0
            RETURNING m.uid, m.call_id),
        dropped AS (
            DELETE FROM missed_calls AS x USING gone WHERE x.call_id = gone.call_id AND x.uid = gone.uid
            RETURNING x.uid, x.seen_at)
        SELECT uid FROM dropped WHERE seen_at IS NULL
        """
}

/// Deletes the member rows (`$1` uid, `$2` call) and those members' missed calls of them;
/// returns the uid of each unseen missed call it deleted. Their counts are locked first, in uid
/// order, as in `KeepOnlyMembers`.
enum DeleteMembers: PostgresWriteSQL {
    static let sql = """
        WITH locked AS (
            SELECT n.uid FROM missed_call_counts AS n WHERE n.uid = ANY ($1::text[]) ORDER BY n.uid FOR UPDATE OF n),
        gone AS (
            DELETE FROM call_members AS m USING unnest($1::text[], $2::bigint[]) AS k (uid, call_id)
            WHERE m.uid = k.uid AND m.call_id = k.call_id AND (SELECT count(*) FROM locked) >= 0
            RETURNING m.uid, m.call_id),
        dropped AS (
            DELETE FROM missed_calls AS x USING gone WHERE x.call_id = gone.call_id AND x.uid = gone.uid
            RETURNING x.uid, x.seen_at)
        SELECT uid FROM dropped WHERE seen_at IS NULL
        """
}

/// Inserts the member rows (`$1` uid, `$2` call) that are not there.
enum InsertMembers: PostgresWriteSQL {
    static let sql = """
        INSERT INTO call_members (uid, call_id)
        SELECT uid, call_id FROM unnest($1::text[], $2::bigint[]) AS k (uid, call_id) ON CONFLICT DO NOTHING
        """
}

/// Raises the last call id given out to `$1`.
enum RaiseLastCallID: PostgresWriteSQL {
    static let sql = "UPDATE store_state SET last_call_id = greatest(last_call_id, $1::bigint)"
}

/// Puts messages (`$1` id, `$2` type, `$3` session, `$4` Unix ms, `$5` body) in the outbox, each
/// with a pending delivery per endpoint wanting it (`$6` message id, `$7` endpoint id, in
/// order); a message already there gets none.
enum EnqueueWebhooks: PostgresWriteSQL {
    static let sql = """
        WITH message AS (
            INSERT INTO webhook_messages (id, type, session_id, created_at, body)
            SELECT id, type, session_id, callgate_time(at), body
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS m (id, type, session_id, at, body)
            ON CONFLICT (id) DO NOTHING RETURNING id, session_id, created_at)
        INSERT INTO webhook_deliveries (message_id, endpoint_id, session_id, status, next_attempt_at)
        SELECT m.id, d.endpoint, m.session_id, 'pending', m.created_at
        FROM message AS m
        JOIN unnest($6::text[], $7::text[]) WITH ORDINALITY AS d (message, endpoint, position) ON d.message = m.id
        ORDER BY d.position
        """
}

/// Notes missed calls (`$1` uid, `$2` call), each once, and adds those it had not noted yet to
/// their users' unseen counts, less one for each unseen missed call dropped (`$3` uid, as
/// `KeepOnlyMembers` and `DeleteMembers` return them), raising each count's revision once and
/// lowering its `unseen_from` to the oldest call noted; returns the counts it changed. Counts are
/// locked in uid order, so two nodes' transactions never wait for each other in a circle.
enum NoteMissedCalls: PostgresWriteSQL {
    static let sql = """
        WITH added AS (
            INSERT INTO missed_calls (call_id, uid)
            SELECT call_id, uid FROM unnest($2::bigint[], $1::text[]) AS m (call_id, uid)
            ON CONFLICT DO NOTHING RETURNING uid, call_id),
        changes AS (
            SELECT uid, 1 AS delta, call_id FROM added
            UNION ALL SELECT uid, -1, NULL::bigint FROM unnest($3::text[]) AS d (uid))
        INSERT INTO missed_call_counts AS n (uid, unseen, revision, unseen_from)
        SELECT uid, sum(delta), 1, min(call_id) FROM changes GROUP BY uid ORDER BY uid
        ON CONFLICT (uid) DO UPDATE SET unseen = greatest(0, n.unseen + excluded.unseen), revision = n.revision + 1,
            unseen_from = least(n.unseen_from, excluded.unseen_from)
        RETURNING uid, unseen, revision
        """
}

/// A write statement that returns users' missed-call counts (`NoteMissedCalls`).
struct PostgresWriteReturningCounts<Kind: PostgresWriteSQL>: PostgresPreparedStatement {
    typealias Row = (String, Int, Int64)
    static var sql: String { Kind.sql }
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> (String, Int, Int64) { try row.decode((String, Int, Int64).self) }
}

/// A write statement that returns uids (`KeepOnlyMembers`, `DeleteMembers`).
struct PostgresWriteReturningUIDs<Kind: PostgresWriteSQL>: PostgresPreparedStatement {
    typealias Row = String
    /// Short: the server cuts names at 63 bytes, and the default (the type's full name) would
    /// make two of these one.
    static var name: String { "uids-\(Kind.self)" }
    static var sql: String { Kind.sql }
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
}

/// A write statement that returns the ids of the rows it wrote (`UpsertCalls`).
struct PostgresWriteReturningIDs<Kind: PostgresWriteSQL>: PostgresPreparedStatement {
    typealias Row = Int64
    static var sql: String { Kind.sql }
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}

extension PostgresBindings {
    /// Bindings of `values`, in order.
    init<each Value: PostgresDynamicTypeEncodable>(_ values: repeat each Value) {
        self.init()
        for value in repeat each values {
            append(value)
        }
    }
}

extension PostgresConnection {
    /// Executes the write statement `Kind` with `bindings`.
    func write<Kind: PostgresWriteSQL>(_ kind: Kind.Type, _ bindings: PostgresBindings, logger: Logger) async throws {
        _ = try await execute(PostgresWrite<Kind>(bindings: bindings), logger: logger)
    }

    /// Executes the write statement `Kind` with `bindings`; returns the counts it changed, by uid.
    func writeReturningCounts<Kind: PostgresWriteSQL>(
        _ kind: Kind.Type, _ bindings: PostgresBindings, logger: Logger
    ) async throws -> [String: MissedCalls] {
        var counts: [String: MissedCalls] = [:]
        for try await (uid, unseen, revision) in try await execute(PostgresWriteReturningCounts<Kind>(bindings: bindings), logger: logger) {
            counts[uid] = MissedCalls(unseen: unseen, revision: revision)
        }
        return counts
    }

    /// Executes the write statement `Kind` with `bindings`; returns the uids it answers, in order.
    func writeReturningUIDs<Kind: PostgresWriteSQL>(
        _ kind: Kind.Type, _ bindings: PostgresBindings, logger: Logger
    ) async throws -> [String] {
        var uids: [String] = []
        for try await uid in try await execute(PostgresWriteReturningUIDs<Kind>(bindings: bindings), logger: logger) {
            uids.append(uid)
        }
        return uids
    }

    /// Executes the write statement `Kind` with `bindings`; returns the ids of the rows it wrote.
    func writeReturningIDs<Kind: PostgresWriteSQL>(
        _ kind: Kind.Type, _ bindings: PostgresBindings, logger: Logger
    ) async throws -> Set<Int64> {
        var ids: Set<Int64> = []
        for try await id in try await execute(PostgresWriteReturningIDs<Kind>(bindings: bindings), logger: logger) {
            ids.insert(id)
        }
        return ids
    }
}

import GRDB

/// The database schema as versioned migrations. A migration, once released, never changes:
/// later changes are new migrations appended here.
enum CallLogSchema {
    /// Every migration, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: calls, participants, members, recording URLs, groups, write probe") { db in
            try createCalls(db)
            try createGroups(db)
            try createWriteProbe(db)
        }
        migrator.registerMigration("v2: participants as JSON in the calls row", migrate: moveParticipantsIntoCalls)
        migrator.registerMigration("v3: webhook endpoints, messages, deliveries and attempts", migrate: createWebhookOutbox)
        migrator.registerMigration("v4: webhook delivery claims and failure reasons", migrate: addWebhookClaims)
        migrator.registerMigration("v5: missed calls and their unseen counts", migrate: createMissedCalls)
        migrator.registerMigration("v6: each call's timeline steps; webhook deliveries by session", migrate: addCallSteps)
        migrator.registerMigration("v7: missed calls keyed by call; where each user's unseen ones start", migrate: keyMissedCallsByCall)
        return migrator
    }

    /// The calls and what hangs off them, as v1 made them.
    ///
    /// `calls` keeps the record as JSON in `record`, except its participants, plus the columns
    /// the queries filter on; AUTOINCREMENT makes SQLite remember the highest id ever saved
    /// (`sqlite_sequence`), even if rows are deleted later. v1 kept participants as rows of
    /// `call_participants`, one per position; v2 moved them into the call's row. `call_members`
    /// is the visibility table: one row per distinct participant uid, its primary key
    /// (uid, call_id) lists a user's calls newest first. Recording URLs are kept beside the
    /// record so saving the record again keeps them.
    private static func createCalls(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE calls (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id TEXT NOT NULL,
                category TEXT NOT NULL,
                call_type TEXT NOT NULL,
                status TEXT NOT NULL,
                initiator_uid TEXT NOT NULL,
                receiver_type TEXT,
                receiver_id TEXT,
                initiated_at INTEGER NOT NULL,
                started_at INTEGER,
                ended_at INTEGER,
                has_recording INTEGER NOT NULL,
                record TEXT NOT NULL
            ) STRICT;
            CREATE INDEX calls_by_session ON calls(session_id, id);
            CREATE INDEX calls_open ON calls(id) WHERE status IN ('initiated', 'ongoing');
            CREATE INDEX calls_by_group ON calls(receiver_id, id) WHERE receiver_type = 'group';
            CREATE TABLE call_participants (
                call_id INTEGER NOT NULL REFERENCES calls(id),
                position INTEGER NOT NULL,
                uid TEXT NOT NULL,
                name TEXT NOT NULL,
                avatar TEXT,
                state TEXT NOT NULL,
                joined_at INTEGER,
                left_at INTEGER,
                closed_seconds INTEGER NOT NULL,
                stay_started_at INTEGER,
                PRIMARY KEY (call_id, position)
            ) WITHOUT ROWID, STRICT;
            CREATE TABLE call_members (
                uid TEXT NOT NULL,
                call_id INTEGER NOT NULL REFERENCES calls(id),
                PRIMARY KEY (uid, call_id)
            ) WITHOUT ROWID, STRICT;
            CREATE TABLE recording_urls (
                call_id INTEGER NOT NULL REFERENCES calls(id),
                rid TEXT NOT NULL,
                url TEXT NOT NULL,
                PRIMARY KEY (call_id, rid)
            ) WITHOUT ROWID, STRICT;
            """)
    }

    /// v2: a call's participants become one column of its row, `calls.participants`
    /// (`ParticipantsJSON`), and `call_participants` goes. A 100-member group ring wrote 100
    /// participant rows at the ring and updated them all at the cancel, most of the writer's
    /// time; now each save is one row, and only `call_members` changes row by row, once per
    /// member, when the participants change.
    ///
    /// Each participant is written by SQLite's own `json_object` from its v1 row, so what this
    /// migration does never changes with the code that writes the column later, and a state
    /// this version does not know is copied as it is (a read of that one call fails, as in v1).
    private static func moveParticipantsIntoCalls(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE calls ADD COLUMN participants TEXT NOT NULL DEFAULT '[]'")
        let rows = try Row.fetchCursor(db, sql: """
            SELECT call_id, json_object('uid', uid, 'name', name, 'avatar', avatar, 'state', state,
                                        'joinedAt', joined_at, 'leftAt', left_at, 'closedSeconds', closed_seconds,
                                        'stayStartedAt', stay_started_at)
            FROM call_participants ORDER BY call_id, position
            """)
        let update = try db.makeStatement(sql: "UPDATE calls SET participants = ? WHERE id = ?")
        var callID: Int64?
        var participants: [String] = []
        func flush() throws {
            guard let callID else { return }
            try update.execute(arguments: ["[" + participants.joined(separator: ",") + "]", callID])
            participants.removeAll(keepingCapacity: true)
        }
        while let row = try rows.next() {
            let id: Int64 = row[0]
            if id != callID {
                try flush()
                callID = id
            }
            participants.append(row[1])
        }
        try flush()
        try db.execute(sql: "DROP TABLE call_participants")
    }

    /// Groups with their members (a JSON array of uids, in order: a group is always written whole).
    private static func createGroups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE call_groups (
                guid TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                icon TEXT,
                members TEXT NOT NULL
            ) STRICT;
            """)
    }

    /// v3: the webhook outbox (`WebhookOutbox`). A message is written once, in the transaction of
    /// the change it reports, with one delivery row per endpoint that wants it; `session_id` is
    /// copied into the delivery so the per-session order check (`webhook_deliveries_queued`)
    /// reads one index. Attempts hang off their delivery; removing an endpoint removes its
    /// deliveries and their attempts.
    private static func createWebhookOutbox(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE webhook_endpoints (
                id TEXT PRIMARY KEY NOT NULL,
                url TEXT NOT NULL,
                secrets TEXT NOT NULL,
                event_types TEXT,
                enabled INTEGER NOT NULL,
                disabled_reason TEXT,
                created_at INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE webhook_messages (
                id TEXT PRIMARY KEY NOT NULL,
                type TEXT NOT NULL,
                session_id TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                body TEXT NOT NULL
            ) STRICT;
            CREATE TABLE webhook_deliveries (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                message_id TEXT NOT NULL REFERENCES webhook_messages(id),
                endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                session_id TEXT NOT NULL,
                status TEXT NOT NULL,
                next_attempt_at INTEGER NOT NULL,
                finished_at INTEGER
            ) STRICT;
            CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, id) WHERE status = 'pending';
            CREATE INDEX webhook_deliveries_queued ON webhook_deliveries(endpoint_id, session_id, id) WHERE status = 'pending';
            CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries(endpoint_id, id);
            CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(finished_at) WHERE finished_at IS NOT NULL;
            CREATE INDEX webhook_deliveries_by_message ON webhook_deliveries(message_id);
            CREATE TABLE webhook_attempts (
                delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
                at INTEGER NOT NULL,
                duration_ms INTEGER NOT NULL,
                status_code INTEGER,
                error TEXT,
                status TEXT NOT NULL,
                next_attempt_at INTEGER
            ) STRICT;
            CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id);
            """)
    }

    /// v4: a delivery is claimed by one run of the dispatcher (`claimed_by`, `node/run`) until
    /// `claim_expires_at`, as on PostgreSQL where several nodes share the outbox; a failed one
    /// says why (`failure_reason`: gone, expired, backlog); a redelivered one expires a retry
    /// period after `redelivered_at`. Each endpoint's queue is read in due order.
    private static func addWebhookClaims(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
            ALTER TABLE webhook_deliveries ADD COLUMN claim_expires_at INTEGER;
            ALTER TABLE webhook_deliveries ADD COLUMN failure_reason TEXT;
            ALTER TABLE webhook_deliveries ADD COLUMN redelivered_at INTEGER;
            CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries(endpoint_id, next_attempt_at, id)
                WHERE status = 'pending';
            CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries(claimed_by) WHERE claimed_by IS NOT NULL;
            """)
    }

    /// v5: each user's missed calls (`MissedCallStore`), with when a device marked them seen
    /// (Unix ms; NULL while unseen), and per user the count of the unseen ones with its
    /// revision. Calls missed before v5 have no row: they count as seen. The primary key serves
    /// `markCallsSeen` (a user's rows up to a call) and the call log's `seen` (one row per call
    /// of a page); no other index, so a missed call costs one row and a count update. v7 keys
    /// the rows by call.
    private static func createMissedCalls(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE missed_calls (
                uid TEXT NOT NULL,
                call_id INTEGER NOT NULL REFERENCES calls(id),
                seen_at INTEGER,
                PRIMARY KEY (uid, call_id)
            ) WITHOUT ROWID, STRICT;
            CREATE TABLE missed_call_counts (
                uid TEXT PRIMARY KEY NOT NULL,
                unseen INTEGER NOT NULL,
                revision INTEGER NOT NULL
            ) WITHOUT ROWID, STRICT;
            """)
    }

    /// v6: each call's steps for its timeline (`CallSteps.json`; NULL for none, as every call
    /// saved before v6 has), and the webhook deliveries of a session found by its id.
    private static func addCallSteps(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE calls ADD COLUMN steps TEXT;
            CREATE INDEX webhook_deliveries_by_session ON webhook_deliveries(session_id, id);
            """)
    }

    /// v7: a missed call's row is keyed by (call id, uid), so the members a cancelled group ring
    /// leaves missed are written on the table's last pages instead of one random page each (the
    /// group benchmark's writer did twice the work of the build before missed calls). A user's
    /// missed calls are found through `call_members`, from `unseen_from`: no unseen missed call of
    /// theirs has a lower call id (NULL when none is unseen), so marking calls seen walks only the
    /// calls since the oldest unseen one. Missed calls of calls that no longer list their user
    /// (kept by v5 and v6 when a save dropped a participant) are dropped, as a save does now, and
    /// each count is set to its unseen rows. The counts are written every ten seconds
    /// (`MissedCountCache`); `missed_count_state.recount_from` is the lowest call id whose missed
    /// calls they may lack, from which opening the file recounts them after a crash.
    private static func keyMissedCallsByCall(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE missed_calls_by_call (
                call_id INTEGER NOT NULL REFERENCES calls(id),
                uid TEXT NOT NULL,
                seen_at INTEGER,
                PRIMARY KEY (call_id, uid)
            ) WITHOUT ROWID, STRICT;
            INSERT INTO missed_calls_by_call (call_id, uid, seen_at) SELECT call_id, uid, seen_at FROM missed_calls;
            DROP TABLE missed_calls;
            ALTER TABLE missed_calls_by_call RENAME TO missed_calls;
            DELETE FROM missed_calls WHERE NOT EXISTS (
                SELECT 1 FROM call_members AS m WHERE m.uid = missed_calls.uid AND m.call_id = missed_calls.call_id);
            ALTER TABLE missed_call_counts ADD COLUMN unseen_from INTEGER;
            CREATE TEMP TABLE unseen_by_user (uid TEXT PRIMARY KEY, unseen INTEGER NOT NULL, first INTEGER NOT NULL);
            INSERT INTO unseen_by_user SELECT uid, count(*), min(call_id) FROM missed_calls WHERE seen_at IS NULL GROUP BY uid;
            UPDATE missed_call_counts SET
                unseen = coalesce((SELECT u.unseen FROM unseen_by_user AS u WHERE u.uid = missed_call_counts.uid), 0),
                revision = revision + 1
            WHERE unseen <> coalesce((SELECT u.unseen FROM unseen_by_user AS u WHERE u.uid = missed_call_counts.uid), 0);
            UPDATE missed_call_counts SET
                unseen_from = (SELECT u.first FROM unseen_by_user AS u WHERE u.uid = missed_call_counts.uid);
            DROP TABLE unseen_by_user;
            CREATE TABLE missed_count_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                recount_from INTEGER
            ) STRICT;
            INSERT INTO missed_count_state (id, recount_from) VALUES (1, NULL);
            """)
    }

    /// The one-row table `isWritable` commits to.
    private static func createWriteProbe(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE write_probe (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                checked_at INTEGER NOT NULL
            ) STRICT;
            """)
    }
}

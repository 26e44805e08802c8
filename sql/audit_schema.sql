-- The audit trail of reckon (--audit), schema version 1: every run, the
-- digests of its windows and its key-level findings, in schema "reckon".
--
-- Idempotent: reckon runs it on first use (in a transaction holding an
-- advisory lock, see audit_migrate_lock.sql), and a DBA may run it ahead of
-- time with `psql -f sql/audit_schema.sql` so that reckon's own role needs
-- only USAGE on the schema and SELECT, INSERT on its tables and sequences.
-- One statement (a DO block) because reckon sends statements with the
-- extended query protocol, which takes one at a time.
DO $audit_schema$
BEGIN
	CREATE SCHEMA IF NOT EXISTS reckon;

	-- Which migrations have been applied; later ones are
	-- sql/audit_migrate_<N>.sql, each adding its own row.
	CREATE TABLE IF NOT EXISTS reckon.schema_version (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now(),
		applied_by text NOT NULL DEFAULT current_user
	);

	CREATE TABLE IF NOT EXISTS reckon.run (
		run_id             bigserial PRIMARY KEY,
		command            text NOT NULL,                  -- check (repair later)
		started_at         timestamptz NOT NULL,           -- client clock, process start
		finished_at        timestamptz NOT NULL,           -- client clock, when recorded
		os_user            text,                           -- effective user (getpwuid)
		login_user         text,                           -- getlogin(), e.g. behind sudo
		host_name          text,
		db_user            text NOT NULL DEFAULT current_user,
		reckon_version     text NOT NULL,
		options            jsonb NOT NULL,                 -- conninfos redacted, never a password
		source             text,                           -- "source table ... on host=..."
		target             text,
		source_table       text,                           -- relation name, or csv:PATH
		target_table       text,
		key_columns        text[] NOT NULL,                -- names for finding.key's elements
		sum_columns        text[] NOT NULL,
		range_from         timestamptz,
		range_to           timestamptz,
		window_width       interval,                       -- exact: hours, never calendar days
		now                timestamptz,                    -- the clock of closedness (--now)
		settle             interval,
		verdict            text CHECK (verdict IN ('match', 'differ')),
		windows_checked    integer,                        -- closed windows
		windows_matched    integer,
		windows_differ     integer,
		windows_open       integer,
		missing            bigint,                         -- findings of each kind
		extra              bigint,
		duplicated         bigint,
		changed            bigint,
		source_duplicate   bigint,
		source_rows        bigint,                         -- rows in closed windows
		target_rows        bigint,
		null_time_source   bigint,                         -- rows no window can hold
		null_time_target   bigint,
		watermark          timestamptz,                    -- --watermark-query result, if any
		missing_behind_watermark bigint,
		exit_status        smallint NOT NULL
	);

	-- Every window of the range, open ones included (status 'open', digests
	-- and counts NULL): the history then shows when a window closed.
	CREATE TABLE IF NOT EXISTS reckon."window" (
		run_id           bigint NOT NULL REFERENCES reckon.run ON DELETE CASCADE,
		window_start     timestamptz NOT NULL,
		window_end       timestamptz NOT NULL,
		status           text NOT NULL CHECK (status IN ('match', 'differ', 'open')),
		source_rows      bigint,
		target_rows      bigint,
		source_hash      char(32),
		target_hash      char(32),
		sums             jsonb,                            -- {"col": {"source": "..", "target": ".."}}
		missing          integer,
		extra            integer,
		duplicated       integer,
		changed          integer,
		source_duplicate integer,
		PRIMARY KEY (run_id, window_start),
		CHECK (window_start < window_end)
	);

	CREATE TABLE IF NOT EXISTS reckon.finding (
		finding_id     bigserial PRIMARY KEY,
		run_id         bigint NOT NULL,
		window_start   timestamptz NOT NULL,
		window_end     timestamptz NOT NULL,
		kind           text NOT NULL
		               CHECK (kind IN ('missing', 'extra', 'duplicated', 'changed', 'source_duplicate')),
		key            jsonb NOT NULL,                     -- ["3", "2"]: key texts, null for NULL
		key_text       text NOT NULL,                      -- order_id=3, line_no=2
		source_copies  integer NOT NULL,
		target_copies  integer NOT NULL,
		source_time    timestamptz,                        -- time of the (first) source copy
		FOREIGN KEY (run_id, window_start) REFERENCES reckon."window" ON DELETE CASCADE
	);

	-- "the last 7 nights", "the runs of this table"
	CREATE INDEX IF NOT EXISTS run_started_at_idx ON reckon.run (started_at);
	CREATE INDEX IF NOT EXISTS run_target_table_idx ON reckon.run (target_table, started_at);
	-- "the history of this window"
	CREATE INDEX IF NOT EXISTS window_window_start_idx ON reckon."window" (window_start, run_id);
	-- the findings of a window (and the cascade from it)
	CREATE INDEX IF NOT EXISTS finding_run_window_idx ON reckon.finding (run_id, window_start);
	-- "the history of one key": hash, since a key may be longer than a
	-- btree entry can hold
	CREATE INDEX IF NOT EXISTS finding_key_idx ON reckon.finding USING hash (key);

	COMMENT ON SCHEMA reckon IS 'audit trail of reckon check runs (docs/audit.md)';
	COMMENT ON TABLE reckon.run IS 'one row per recorded reckon run';
	COMMENT ON TABLE reckon."window" IS 'the windows of a run with both sides'' digests';
	COMMENT ON TABLE reckon.finding IS 'key-level findings inside the windows that differ';

	INSERT INTO reckon.schema_version (version) VALUES (1) ON CONFLICT (version) DO NOTHING;
END
$audit_schema$;

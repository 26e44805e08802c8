-- The audit trail of reckon (--audit), schema version 2: repairs.
-- `reckon repair --audit` records its run in reckon.run (command 'repair')
-- and what it did to each interval of its rerun list in
-- reckon.repair_interval, dry runs included (status 'planned').
--
-- Applies on top of version 1 (sql/audit_schema.sql).  Idempotent: reckon
-- runs the missing migrations in order on first use or after an upgrade (in
-- a transaction holding an advisory lock, see audit_migrate_lock.sql), and a
-- DBA may run it ahead of time with `psql -f sql/audit_migrate_2.sql`, then
-- grant reckon's role SELECT, INSERT on reckon.repair_interval.  One
-- statement (a DO block): reckon sends statements with the extended query
-- protocol, which takes one at a time.
DO $audit_migrate_2$
BEGIN
	-- A repair run's verdict: match (every interval replaced and verified),
	-- differ (some still differ), planned (a dry run), failed (it stopped).
	ALTER TABLE reckon.run DROP CONSTRAINT IF EXISTS run_verdict_check;
	ALTER TABLE reckon.run ADD CONSTRAINT run_verdict_check
		CHECK (verdict IN ('match', 'differ', 'planned', 'failed'));
	-- Why a run stopped (reckon's error message, never a password); NULL
	-- when it did not.
	ALTER TABLE reckon.run ADD COLUMN IF NOT EXISTS error text;

	-- Every interval of a repair's rerun list, in the state the run left it.
	CREATE TABLE IF NOT EXISTS reckon.repair_interval (
		run_id             bigint NOT NULL REFERENCES reckon.run ON DELETE CASCADE,
		interval_start     timestamptz NOT NULL,
		interval_end       timestamptz NOT NULL,
		status             text NOT NULL CHECK (status IN (
		                       'planned',       -- dry run: counted, nothing changed
		                       'verified',      -- replaced, the re-check matches
		                       'differ',        -- replaced, the re-check still differs
		                       'replaced',      -- replaced, the re-check could not run
		                       'not_changed',   -- its transaction failed and rolled back
		                       'unknown',       -- connection lost during its COMMIT
		                       'not_started')), -- the run stopped before it
		-- the rerun list's own numbers: what the check that wrote it saw
		source_rows_before bigint NOT NULL,
		target_rows_before bigint NOT NULL,
		missing            bigint NOT NULL,
		extra              bigint NOT NULL,
		duplicated         bigint NOT NULL,
		changed            bigint NOT NULL,
		-- what the repair did (planned: would do); NULL when it did nothing
		source_rows        bigint,                         -- read from the source
		deleted_by_time    bigint,                         -- target rows in the interval
		deleted_by_key     bigint,                         -- outside it, holding a source key
		inserted           bigint,
		-- the re-check (verified, differ); NULL otherwise
		recheck            text CHECK (recheck IN ('match', 'differ')),
		source_rows_after  bigint,
		target_rows_after  bigint,
		PRIMARY KEY (run_id, interval_start),
		CHECK (interval_start < interval_end)
	);

	-- "the repairs of this interval"
	CREATE INDEX IF NOT EXISTS repair_interval_start_idx ON reckon.repair_interval (interval_start, run_id);

	COMMENT ON SCHEMA reckon IS 'audit trail of reckon check and repair runs (docs/audit.md)';
	COMMENT ON TABLE reckon.repair_interval IS 'what a repair run did to each interval of its rerun list';

	INSERT INTO reckon.schema_version (version) VALUES (2) ON CONFLICT (version) DO NOTHING;
END
$audit_migrate_2$;

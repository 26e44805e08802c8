-- The audit trail of reckon (--audit), schema version 3: a repair leaves
-- alone an interval that already matches when it checks it first, and
-- records it as such (status 'already_matches', with that check's row
-- counts as source_rows_after / target_rows_after and recheck 'match').
--
-- Applies on top of version 2 (sql/audit_migrate_2.sql); idempotent, one
-- statement, run by reckon on first use or by a DBA ahead of time with
-- `psql -f sql/audit_migrate_3.sql`.
DO $audit_migrate_3$
BEGIN
	ALTER TABLE reckon.repair_interval DROP CONSTRAINT IF EXISTS repair_interval_status_check;
	ALTER TABLE reckon.repair_interval ADD CONSTRAINT repair_interval_status_check CHECK (status IN (
		'planned',          -- dry run: counted, nothing changed
		'verified',         -- replaced, the re-check matches
		'differ',           -- replaced, the re-check still differs
		'replaced',         -- replaced, the re-check could not run
		'not_changed',      -- its transaction failed (or was interrupted) and rolled back
		'unknown',          -- connection lost during its COMMIT
		'not_started',      -- the run stopped before it
		'already_matches'));-- it matched when checked first: left alone

	INSERT INTO reckon.schema_version (version) VALUES (3) ON CONFLICT (version) DO NOTHING;
END
$audit_migrate_3$;

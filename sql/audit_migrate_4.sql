-- The audit trail of reckon (--audit), schema version 4: a row-level
-- repair (the default) updates rows in place, and moves in rows whose time
-- changed, besides inserting and deleting; reckon.repair_interval records
-- how many: updated (the rows updated in place, moved ones included) and
-- moved (of those, the rows whose only target copy lay in another window).
-- --replace-interval records 0 for both; NULL where the other counts are
-- NULL (the interval was not counted).
--
-- Applies on top of version 3 (sql/audit_migrate_3.sql); idempotent, one
-- statement, run by reckon on first use or by a DBA ahead of time with
-- `psql -f sql/audit_migrate_4.sql`.
DO $audit_migrate_4$
BEGIN
	ALTER TABLE reckon.repair_interval ADD COLUMN IF NOT EXISTS updated bigint;
	ALTER TABLE reckon.repair_interval ADD COLUMN IF NOT EXISTS moved bigint;

	INSERT INTO reckon.schema_version (version) VALUES (4) ON CONFLICT (version) DO NOTHING;
END
$audit_migrate_4$;

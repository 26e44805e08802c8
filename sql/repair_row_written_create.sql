-- The rows the repair inserted or updated, checked against --target-where
-- before the commit.
CREATE TEMP TABLE reckon_repair_written (
	relid  oid NOT NULL,
	row_id tid NOT NULL
) ON COMMIT DROP;

-- Dry run: the target rows an earlier interval of the plan would have
-- deleted, so that no row is counted twice when intervals interact (a
-- stale copy the key delete of one interval removes from another's
-- window).  (tableoid, ctid) names a row, partitions included;
-- "reckon.interval" is the start of the interval whose plan marked it.
CREATE TEMP TABLE reckon_repair_gone (
	relid             oid NOT NULL,
	row_id            tid NOT NULL,
	"reckon.interval" timestamptz NOT NULL
);

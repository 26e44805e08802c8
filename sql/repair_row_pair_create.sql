-- The target rows of the pair (those --target-where selects) that hold a
-- finding key, wherever their time is: (tableoid, ctid) names a row,
-- partitions included.
CREATE TEMP TABLE reckon_repair_pair (
	relid  oid NOT NULL,
	row_id tid NOT NULL
) ON COMMIT DROP;

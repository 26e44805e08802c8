-- What the repair does to each row it looks at: 'k' keep (the copy of a
-- source row that already matches), 'u' update in place, 'd' delete (an
-- extra row, a surplus copy), 'm' move in (the target's only copy of a
-- missing key lies outside the interval: updated in place, its identity
-- and its referencing rows kept), 'i' insert (relid 0, row_id = the staged
-- row).  "reckon.key" is the key as text, "reckon.time" the row's time.
CREATE TEMP TABLE reckon_repair_diff (
	relid         oid NOT NULL,
	row_id        tid NOT NULL,
	act           "char" NOT NULL,
	"reckon.key"  text NOT NULL,
	"reckon.time" timestamptz
) ON COMMIT DROP;

-- The intervals to replace, so that one statement can tell a target row
-- inside its interval from one outside it.
CREATE TEMP TABLE reckon_repair_intervals (
	"start" timestamptz PRIMARY KEY,
	"end"   timestamptz NOT NULL
);

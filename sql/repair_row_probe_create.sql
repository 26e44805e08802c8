-- Dry run, row by row, a --target-where that tests a target column no
-- source column fills: a table shaped like the target, with its defaults
-- and generated columns (no constraints, no identity), that the rows the
-- repair would insert are inserted into instead, so that each takes the
-- defaults the target would give it.  Created before the plan turns
-- read-only; dropped with the transaction.
-- psql -v target_table=mart.orders -f sql/repair_row_probe_create.sql
CREATE TEMP TABLE reckon_repair_probe (LIKE :target_table INCLUDING DEFAULTS INCLUDING GENERATED) ON COMMIT DROP;

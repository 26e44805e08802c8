-- Dry run: of the rows the interval's repair would insert, as the probe
-- holds them, those --target-where does not select: they would land in
-- another owner's slice.  Read-only; the condition evaluated as one
-- boolean column of a subquery.
-- psql -v target_filter=true -f sql/repair_row_probe_check.sql
SELECT count(*)
FROM (SELECT :target_filter AS "reckon.pair" FROM reckon_repair_probe) AS f
WHERE f."reckon.pair" IS NOT TRUE;

-- Of the rows the repair inserted or updated, those --target-where does not
-- select: a row written into another owner's slice (a column the filter
-- needs that no source column fills).  Read-only; the condition evaluated
-- as one boolean column of a subquery.
-- psql -v target_table=mart.orders -v target_filter=true -f sql/repair_row_verify.sql
SELECT count(*)
FROM (SELECT :target_filter AS "reckon.pair"
      FROM :target_table
      WHERE (tableoid, ctid) IN (SELECT relid, row_id FROM reckon_repair_written)) AS f
WHERE f."reckon.pair" IS NOT TRUE;

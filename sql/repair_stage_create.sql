-- The source's rows of every interval to replace are staged once, before
-- any change, in a temporary table with the target's own column types (the
-- server parses them once; the keyed delete is a join, the insert one
-- statement), each tagged with the start of its interval.  It lives as long
-- as the session.  Referring to the target also waits, under the lock
-- timeout, for whoever holds it exclusively.
-- psql -v target_table=mart.orders -v columns='order_id, created_at' -f sql/repair_stage_create.sql
CREATE TEMP TABLE reckon_repair_rows AS
SELECT NULL::timestamptz AS "reckon.interval", :columns
FROM :target_table
WITH NO DATA;

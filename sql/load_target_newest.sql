-- target-watermark: the newest time already in the target (among the rows
-- of the pair), minus the lookback; -infinity for an empty target.
-- $1 = lookback interval
-- psql -v target_table=shop.orders_copy -v time=ts -v target_filter=true -f sql/load_target_newest.sql
SELECT coalesce(max(:time)::timestamptz, '-infinity') - $1::interval
FROM :"target_table"
WHERE :target_filter;

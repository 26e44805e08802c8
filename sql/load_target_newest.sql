-- target-watermark: the newest time already in the target, minus the
-- lookback; -infinity for an empty target.  $1 = lookback interval
SELECT coalesce(max(:"time")::timestamptz, '-infinity') - $1::interval
FROM :"target_table";

-- The enabled logical-replication subscriptions whose apply worker writes
-- into the table $1 (oid), with the table's synchronisation state
-- (i init, d copying, f finished copy, s synchronized, r ready).  A repair
-- racing the apply worker breaks replication (a duplicate key in the
-- worker), so reckon refuses such a table without --force.
SELECT s.subname, sr.srsubstate
FROM pg_catalog.pg_subscription_rel sr
JOIN pg_catalog.pg_subscription s ON s.oid = sr.srsubid
WHERE sr.srrelid = $1::pg_catalog.oid
  AND s.subenabled
ORDER BY s.subname;

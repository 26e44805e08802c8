-- The planner's row estimate of a relation, for sizing a key sample
-- (key segments, docs/key-segments.md).  $1 = the relation's oid.  -1 or 0
-- when it was never analyzed (and for a partitioned table's parent); its
-- pages, as of the last VACUUM or ANALYZE.
SELECT c.reltuples::float8, c.relkind, c.relpages::float8
FROM pg_catalog.pg_class c
WHERE c.oid = $1::oid;

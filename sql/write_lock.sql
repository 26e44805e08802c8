-- The target's write lock: serialises repairs and loads of one target
-- table, so an interval load and a repair never interleave (each deletes
-- what the other inserted but has not committed yet, and both commit).
-- Taken inside the writing transaction and held until it ends (or its
-- session dies): no session state, so it works through a transaction
-- pooler.  The key is the pair (hashtext('reckon repair'), the table's oid),
-- so a person can take the same lock by hand:
--   SELECT pg_advisory_lock(hashtext('reckon repair'), 'mart.orders'::regclass::oid::int4);
-- $1 = the target relation's oid
SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('reckon repair'),
                                        $1::pg_catalog.oid::pg_catalog.int4);

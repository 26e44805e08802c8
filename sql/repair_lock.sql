-- Serialises repairs of one target table: held until the interval's
-- transaction ends (or its session dies).  The key is the pair
-- (hashtext('reckon repair'), the table's oid), so a person can take the same
-- lock by hand:
--   SELECT pg_advisory_lock(hashtext('reckon repair'), 'mart.orders'::regclass::oid::int4);
-- $1 = the target relation's oid
SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('reckon repair'),
                                        $1::pg_catalog.oid::pg_catalog.int4);

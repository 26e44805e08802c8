-- The write lock of write_lock.sql without waiting: false when another
-- session holds it (reckon then says it is waiting, and waits).
-- $1 = the target relation's oid
SELECT pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('reckon repair'),
                                            $1::pg_catalog.oid::pg_catalog.int4);

-- Serialises concurrent first runs that would create the audit schema at the
-- same time (CREATE ... IF NOT EXISTS alone can still race).  Held until the
-- migration transaction ends.
SELECT pg_advisory_xact_lock(hashtext('reckon audit schema migration'));

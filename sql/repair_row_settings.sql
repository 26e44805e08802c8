-- The lock timeout, for this transaction only (a transaction pooler may
-- hand the next transaction to another server session, and drops the
-- options startup parameter it travels in otherwise).  The settings
-- reckon's text parsing relies on are set for every transaction by
-- sql/session_settings_local.sql, right after its BEGIN.
-- $1 = the lock timeout, e.g. '30000ms' ('0': none)
SELECT pg_catalog.set_config('lock_timeout', $1, true);

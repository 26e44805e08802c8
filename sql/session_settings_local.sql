-- The settings of sql/session_settings.sql again, for the transaction just
-- begun only (SET LOCAL): a transaction pooler (pgbouncer in
-- pool_mode=transaction) may run each transaction on another server session
-- and reset it after each one (DISCARD ALL), so a session's settings do
-- not reach the transaction; these do.  Sent right after a BEGIN, in one
-- simple-protocol message: SET takes no snapshot, so a SET TRANSACTION
-- SNAPSHOT that follows is still the transaction's first query.  Constant
-- text only: nothing is bound or spliced.
SET LOCAL TimeZone = 'UTC';
SET LOCAL DateStyle = 'ISO, YMD';
SET LOCAL IntervalStyle = 'postgres';
SET LOCAL extra_float_digits = 3;
SET LOCAL bytea_output = 'hex';
SET LOCAL lc_monetary = 'C';

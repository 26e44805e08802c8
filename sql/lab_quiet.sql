-- The lab drops and recreates its own schema for every scenario; the
-- "does not exist, skipping" and "drop cascades" notices of that are noise
-- on reckon's stderr.  For the lab's own sessions only.
SELECT pg_catalog.set_config('client_min_messages', 'warning', false);

-- Keeps the "already exists, skipping" notices of an idempotent migration
-- off reckon's stderr (until the transaction ends).
SELECT pg_catalog.set_config('client_min_messages', 'warning', true);

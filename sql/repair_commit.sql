-- The interval is replaced.
COMMIT;

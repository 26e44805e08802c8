-- The newest migration applied to the audit schema (0: none yet).
SELECT coalesce(max(version), 0) FROM reckon.schema_version;

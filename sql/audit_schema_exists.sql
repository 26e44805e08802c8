-- Whether the audit schema has been created (before reading its version).
SELECT to_regclass('reckon.schema_version') IS NOT NULL;

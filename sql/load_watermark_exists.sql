-- Whether the watermark table exists yet (so the usual run does not even
-- issue the CREATE).  $1 = the quoted, possibly schema-qualified name
SELECT to_regclass($1) IS NOT NULL;

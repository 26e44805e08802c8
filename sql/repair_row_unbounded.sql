-- Rows the repair would move whose time is +-infinity (or out of reckon's
-- time range): the window they leave cannot be named, nor checked again.
SELECT count(*), min("reckon.key")
FROM reckon_repair_diff
WHERE act = 'm' AND "reckon.time" IS NOT NULL
  AND (NOT pg_catalog.isfinite("reckon.time") OR "reckon.time" >= '294246-01-01 00:00:00+00'::timestamptz);

-- Moves a watermark forward, never backwards: a run that re-read older rows
-- (lookback) or read nothing keeps the newer value already stored.
-- $1 = load name, $2 = newest source time the run read
UPDATE :"watermark_table"
SET watermark = greatest(watermark, $2::timestamptz),
    updated_at = clock_timestamp()
WHERE load_name = $1
RETURNING watermark;

-- The current watermark of one load.  $1 = load name
SELECT watermark
FROM :"watermark_table"
WHERE load_name = $1;

-- A new load name starts at -infinity: its first run reads everything.
-- $1 = load name
INSERT INTO :"watermark_table" (load_name, watermark)
VALUES ($1, '-infinity')
ON CONFLICT (load_name) DO NOTHING;

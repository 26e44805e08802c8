-- The watermark table of `reckon load`: one row per load name, the newest
-- source time the load claims to have written.  Created when missing.
-- psql -v watermark_table=etl_watermark -f sql/load_watermark_ddl.sql
CREATE TABLE IF NOT EXISTS :"watermark_table" (
	load_name text PRIMARY KEY,
	watermark timestamptz NOT NULL DEFAULT '-infinity',
	updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

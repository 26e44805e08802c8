-- Each interval's transaction reads its own staged rows.
CREATE INDEX ON reckon_repair_rows ("reckon.interval");

-- Engine delta: the Delta target's live rows into the mirror (COPY text;
-- loaded_at NULL: a Delta table has no column defaults).
COPY reckon_lab.fact_transactions (txn_id, updated_at, amount, interval_start, loaded_at) FROM STDIN;

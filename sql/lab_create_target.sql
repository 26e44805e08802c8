-- The lab's target table: no primary key, so that duplicates can exist.
CREATE TABLE reckon_lab.fact_transactions (
	txn_id text,
	updated_at timestamptz,
	amount numeric(12,2),
	interval_start timestamptz,
	loaded_at timestamptz DEFAULT clock_timestamp()
);

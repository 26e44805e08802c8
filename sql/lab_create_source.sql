-- The lab's source table (docs/loader.md).
CREATE TABLE reckon_lab.src_transactions (
	txn_id text PRIMARY KEY,
	updated_at timestamptz NOT NULL,
	amount numeric(12,2) NOT NULL
);

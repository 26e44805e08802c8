-- One source row arriving.  $1 = txn_id, $2 = updated_at, $3 = amount
INSERT INTO reckon_lab.src_transactions (txn_id, updated_at, amount)
VALUES ($1, $2::timestamptz, $3::numeric);

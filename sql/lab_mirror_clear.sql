-- Engine delta: empties the PostgreSQL mirror of the Delta target, which
-- the lab then fills with the table's live rows (lab_mirror_copy).
TRUNCATE reckon_lab.fact_transactions;

-- Tags this session so another connection can recognise it in
-- pg_stat_activity (proof that two connections reach the same database).
-- $1 = a unique application_name
SELECT set_config('application_name', $1, false);

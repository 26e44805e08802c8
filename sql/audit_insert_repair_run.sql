-- Records one repair run; its intervals follow in the same transaction.
-- $10, $11: JSON arrays of column names; $12, $13: the span of the rerun
-- list (NULL when it is empty); $16: why the run stopped, or NULL.
INSERT INTO reckon.run (
	command, started_at, finished_at, os_user, login_user, host_name, reckon_version, options,
	source_table, target_table, key_columns, sum_columns, range_from, range_to,
	verdict, exit_status, error)
VALUES (
	'repair', $1::timestamptz, $2::timestamptz, $3, $4, $5, $6, $7::jsonb,
	$8, $9,
	ARRAY(SELECT jsonb_array_elements_text($10::jsonb)),
	ARRAY(SELECT jsonb_array_elements_text($11::jsonb)),
	$12::timestamptz, $13::timestamptz,
	$14, $15::smallint, $16)
RETURNING run_id;

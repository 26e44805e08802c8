-- Records one run; its windows and findings follow in the same transaction.
-- $13, $14: JSON arrays of column names; $17, $19: intervals as
-- '<N> microseconds'.
INSERT INTO reckon.run (
	command, started_at, finished_at, os_user, login_user, host_name, reckon_version, options,
	source, target, source_table, target_table, key_columns, sum_columns,
	range_from, range_to, window_width, now, settle, verdict,
	windows_checked, windows_matched, windows_differ, windows_open,
	missing, extra, duplicated, changed, source_duplicate,
	source_rows, target_rows, null_time_source, null_time_target,
	watermark, missing_behind_watermark, exit_status)
VALUES (
	$1, $2::timestamptz, $3::timestamptz, $4, $5, $6, $7, $8::jsonb,
	$9, $10, $11, $12,
	ARRAY(SELECT jsonb_array_elements_text($13::jsonb)),
	ARRAY(SELECT jsonb_array_elements_text($14::jsonb)),
	$15::timestamptz, $16::timestamptz, $17::interval, $18::timestamptz, $19::interval, $20,
	$21::integer, $22::integer, $23::integer, $24::integer,
	$25::bigint, $26::bigint, $27::bigint, $28::bigint, $29::bigint,
	$30::bigint, $31::bigint, $32::bigint, $33::bigint,
	$34::timestamptz, $35::bigint, $36::smallint)
RETURNING run_id;

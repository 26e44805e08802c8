-- The intervals of a repair run (COPY text format, one line per interval).
COPY reckon.repair_interval (run_id, interval_start, interval_end, status,
                             source_rows_before, target_rows_before, missing, extra, duplicated, changed,
                             source_rows, deleted_by_time, deleted_by_key, inserted, updated, moved,
                             recheck, source_rows_after, target_rows_after)
FROM STDIN;

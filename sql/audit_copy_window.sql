-- The windows of a run (COPY text format, one line per window).
COPY reckon."window" (run_id, window_start, window_end, status, source_rows, target_rows,
                      source_hash, target_hash, sums, missing, extra, duplicated, changed,
                      source_duplicate)
FROM STDIN;

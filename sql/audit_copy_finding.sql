-- The key-level findings of a run (COPY text format, one line per finding).
COPY reckon.finding (run_id, window_start, window_end, kind, key, key_text,
                     source_copies, target_copies, source_time)
FROM STDIN;

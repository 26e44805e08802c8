-- The intervals to replace (COPY text format: start, end).
COPY reckon_repair_intervals FROM STDIN;

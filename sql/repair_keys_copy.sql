-- Streams the source's keys outside the intervals (COPY text format).
COPY reckon_repair_keys FROM STDIN;

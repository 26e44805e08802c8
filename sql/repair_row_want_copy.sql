-- Streams the interval's finding keys (COPY text format).
COPY reckon_repair_want FROM STDIN;

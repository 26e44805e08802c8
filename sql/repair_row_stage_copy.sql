-- Streams the source's rows of the interval (COPY text format, the
-- staging table's column order).
COPY reckon_repair_rows FROM STDIN;

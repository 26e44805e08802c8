-- Streams the source's rows of the interval into the staging table (COPY
-- text format, columns in the staging table's order).
COPY reckon_repair_rows FROM STDIN;

-- Streams the source's rows of the intervals into the staging table (COPY
-- text format: the interval's start, then the columns in the staging
-- table's order).
COPY reckon_repair_rows FROM STDIN;

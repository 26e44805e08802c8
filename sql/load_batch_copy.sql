-- Streams the rows read into the staging table (COPY text format).
COPY reckon_load_batch FROM STDIN;

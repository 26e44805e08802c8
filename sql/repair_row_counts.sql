-- How many rows of each kind the repair of the interval writes.
SELECT count(*) FILTER (WHERE act = 'i'),
       count(*) FILTER (WHERE act = 'u'),
       count(*) FILTER (WHERE act = 'd'),
       count(*) FILTER (WHERE act = 'm')
FROM reckon_repair_diff;

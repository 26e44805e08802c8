-- Keys the source holds in more than one of the intervals to replace: the
-- later interval's delete by key would remove the rows the earlier one
-- inserted.  A NULL key part never matches a delete by key.  Returns how
-- many such keys, and one of them.
-- psql -v keys='order_id, line_no' -f sql/repair_survey_twice.sql
SELECT count(*), min(k)
FROM (SELECT ROW(:keys)::text AS k
      FROM reckon_repair_rows
      WHERE ROW(:keys) IS NOT NULL
      GROUP BY :keys
      HAVING count(DISTINCT "reckon.interval") > 1) x;

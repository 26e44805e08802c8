-- What an INSERT that leaves a column out gives it, for every column of a
-- table reckon writes into (repair, load), in order: generated (computed by
-- the server), identity (a value of its own), a default (the column's, or
-- its domain's), NOT NULL (the column's, or a domain's along the chain).
-- A column that is NOT NULL with neither default nor identity must be
-- written.  $1 = the table's oid
WITH RECURSIVE dom AS (
    SELECT a.attnum, a.atttypid AS typid, false AS dom_notnull, false AS dom_default
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = $1::pg_catalog.oid
      AND a.attnum > 0
      AND NOT a.attisdropped
  UNION ALL
    SELECT dom.attnum, t.typbasetype, t.typnotnull, t.typdefault IS NOT NULL OR t.typdefaultbin IS NOT NULL
    FROM dom
    JOIN pg_catalog.pg_type t ON t.oid = dom.typid
    WHERE t.typtype = 'd'
)
SELECT a.attname,
       a.attgenerated <> '' AS generated,
       a.attidentity <> '' AS identity,
       a.atthasdef OR d.dom_default AS has_default,
       a.attnotnull OR d.dom_notnull AS not_null
FROM pg_catalog.pg_attribute a
JOIN (SELECT attnum, bool_or(dom_default) AS dom_default, bool_or(dom_notnull) AS dom_notnull
      FROM dom GROUP BY attnum) d ON d.attnum = a.attnum
WHERE a.attrelid = $1::pg_catalog.oid
  AND a.attnum > 0
  AND NOT a.attisdropped
ORDER BY a.attnum;

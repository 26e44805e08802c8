-- A type as a column of that type would be listed by catalog_columns.sql:
-- its declared name, the type its text output follows (a domain's base
-- type) and that type's oid.  For the result of an SQL expression, whose
-- type the statement's description gives.  $1 = type oid, $2 = typmod
WITH RECURSIVE t AS (
    SELECT $1::pg_catalog.oid AS typid, $2::pg_catalog.int4 AS typmod,
           pg_catalog.format_type($1::pg_catalog.oid, $2::pg_catalog.int4) AS declared
  UNION ALL
    SELECT ty.typbasetype, ty.typtypmod, t.declared
    FROM t
    JOIN pg_catalog.pg_type ty ON ty.oid = t.typid
    WHERE ty.typtype = 'd'
)
SELECT t.declared, pg_catalog.format_type(t.typid, t.typmod) AS base, t.typid
FROM t
JOIN pg_catalog.pg_type ty ON ty.oid = t.typid
WHERE ty.typtype <> 'd';

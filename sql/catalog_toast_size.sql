-- Whether a relation may hold a large value (docs/performance.md "Large
-- values"): the size in bytes of its TOAST table, where every value of a
-- mebibyte or more is kept (even compressed it is past the 2 kB a row
-- keeps in line), 0 when it is empty; no row when it has none.  Only a
-- hint for what to read out of band: the result is the same either way.
-- $1 = the relation's oid.
SELECT pg_catalog.pg_relation_size(c.reltoastrelid)
FROM pg_catalog.pg_class c
WHERE c.oid = $1::pg_catalog.oid AND c.reltoastrelid <> 0;

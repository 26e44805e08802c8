-- Whether a relation may hold a large value, and whether its rows can be
-- read again by (tableoid, ctid) (docs/performance.md "Large values"):
-- over the relation and every table under it (its partitions, or its
-- inheritance children, which a scan of it reads too), the size in bytes
-- of their TOAST tables, where every value of a mebibyte or more is kept
-- (even compressed it is past the 2 kB a row keeps in line), and how many
-- of them are foreign tables (whose rows have no ctid to read again).
-- Only a hint for what to read out of band: the result is the same either
-- way.  $1 = the relation's oid.
WITH RECURSIVE tree(relid) AS (
    SELECT $1::pg_catalog.oid
    UNION ALL
    SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN tree t ON i.inhparent = t.relid
)
SELECT coalesce(sum(pg_catalog.pg_relation_size(c.reltoastrelid)) FILTER (WHERE c.reltoastrelid <> 0), 0),
       count(*) FILTER (WHERE c.relkind = 'f')
FROM tree t
JOIN pg_catalog.pg_class c ON c.oid = t.relid;

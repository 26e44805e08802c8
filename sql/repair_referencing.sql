-- The foreign keys that reference the target table: what a delete of a
-- referenced row does (confdeltype: a no action, r restrict, c cascade,
-- n set null, d set default), the referencing table, and both column lists
-- quoted by the server, the referencing columns prefixed "c.", the
-- referenced ones "t.".  Partitions' clones of a key are left out.
-- $1 = the target relation's oid
SELECT c.conname::text,
       c.conrelid::pg_catalog.regclass::text,
       c.confdeltype::text,
       (SELECT string_agg('c.' || pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n)
        FROM unnest(c.conkey) WITH ORDINALITY AS k (att, n)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att),
       (SELECT string_agg('t.' || pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.n)
        FROM unnest(c.confkey) WITH ORDINALITY AS k (att, n)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.att)
FROM pg_catalog.pg_constraint c
WHERE c.contype = 'f' AND c.confrelid = $1::pg_catalog.oid AND c.conparentid = 0
ORDER BY 1;

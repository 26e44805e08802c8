-- The reckon extension, 1.2 to 1.3: reckon_key_hash, so that reckon check
-- --pushdown narrows a damaged window down inside the database (its
-- drilldown, docs/pushdown.md): the rows of one instant are split by key
-- hash there as the streaming drilldown splits them.  The digests are
-- unchanged: the module's digest format (reckon_pushdown_version()) stays
-- 2, and every function of 1.2 is there as it was.  CREATE EXTENSION reckon
-- builds 1.3 as 1.0 plus the update scripts; ALTER EXTENSION reckon UPDATE
-- brings an installed 1.0, 1.1 or 1.2 here.
\echo Use "ALTER EXTENSION reckon UPDATE TO '1.3'" to load this file. \quit

-- reckon_key_hash(c1, c2, ...) -> bigint: the low 64 bits of the key's hash
-- (XXH3-128 of the canonical encoding of the key columns in --key order,
-- docs/digest.md), as a two's complement bigint: the drilldown splits the
-- rows of one instant by its bits (hash & mask) as the client splits them.
CREATE FUNCTION reckon_key_hash(VARIADIC "any") RETURNS bigint
    AS 'MODULE_PATHNAME', 'reckon_key_hash'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

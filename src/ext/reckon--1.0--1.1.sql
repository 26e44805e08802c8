-- The reckon extension, 1.0 to 1.1: reckon_window, a window's whole digest
-- (row count, window hash, exact sums) in one aggregate, the statement of
-- reckon check --pushdown from digest format 2 on.  CREATE EXTENSION reckon
-- builds 1.1 as 1.0 plus this script; ALTER EXTENSION reckon UPDATE brings
-- an installed 1.0 here (the module must be the one built with it: its
-- reckon_pushdown_version() is 2).
\echo Use "ALTER EXTENSION reckon UPDATE TO '1.1'" to load this file. \quit

-- reckon_window(roles, c1, c2, ...) -> text[] {count, hash, sum...}:
-- roles has one letter per column, h hashed, s summed, b hashed and summed;
-- the row encoding is that of the hashed columns in their order (as
-- reckon_digest's), the sums those of the summed columns in their order,
-- each as canonical numeric text, or 'overflow' when the exact sum does not
-- fit 128 bits.  Partial states combine, so it runs in parallel workers.
-- roles is a bytea ('hbh' is those three bytes): a text constant would carry
-- a collation, and postgres_fdw sends an aggregate to a foreign server only
-- when its input collation comes from the foreign table's columns.
CREATE FUNCTION reckon_window_trans(internal, bytea, VARIADIC "any") RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_window_trans'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_window_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_window_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_window_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'reckon_window_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_window_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_window_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_window_final(internal) RETURNS text[]
    AS 'MODULE_PATHNAME', 'reckon_window_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE reckon_window(bytea, VARIADIC "any") (
    SFUNC = reckon_window_trans,
    STYPE = internal,
    SSPACE = 64,
    FINALFUNC = reckon_window_final,
    COMBINEFUNC = reckon_window_combine,
    SERIALFUNC = reckon_window_serial,
    DESERIALFUNC = reckon_window_deserial,
    PARALLEL = SAFE
);

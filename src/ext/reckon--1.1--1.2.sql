-- The reckon extension, 1.1 to 1.2: reckon_windows, every window's digest
-- in one pass without GROUP BY, the statement of reckon check --pushdown
-- when the database has it (with 1.1, reckon groups reckon_window by
-- window).  The digests are reckon_window's, byte for byte: the module's
-- digest format (reckon_pushdown_version()) stays 2.  CREATE EXTENSION
-- reckon builds 1.2 as 1.0 plus the update scripts; ALTER EXTENSION reckon
-- UPDATE brings an installed 1.0 or 1.1 here.
\echo Use "ALTER EXTENSION reckon UPDATE TO '1.2'" to load this file. \quit

-- reckon_windows(from, width, roles, t, c1, c2, ...) -> text[][]: the rows
-- go to windows by their time t (timestamptz, timestamp or date): window
-- (reckon_instant(t) - from) / width, from and width in microseconds,
-- constants; a row whose t is NULL to a window of its own.  The values
-- c1, c2, ... and roles are reckon_window's.  One result row per window
-- with rows, {window, count, hash, sum...}, in window order, the NULL
-- times' last with a NULL window; NULL when no row came.  Rows must not
-- come before from, nor more than 2^20 windows after it.
CREATE FUNCTION reckon_windows_trans(internal, int8, int8, bytea, VARIADIC "any") RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_windows_trans'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_windows_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_windows_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_windows_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'reckon_windows_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_windows_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_windows_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_windows_final(internal) RETURNS text[]
    AS 'MODULE_PATHNAME', 'reckon_windows_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE reckon_windows(int8, int8, bytea, VARIADIC "any") (
    SFUNC = reckon_windows_trans,
    STYPE = internal,
    SSPACE = 4096,
    FINALFUNC = reckon_windows_final,
    COMBINEFUNC = reckon_windows_combine,
    SERIALFUNC = reckon_windows_serial,
    DESERIALFUNC = reckon_windows_deserial,
    PARALLEL = SAFE
);

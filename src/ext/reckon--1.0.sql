-- The reckon extension, version 1.0: window digests computed inside
-- PostgreSQL for `reckon check --pushdown`, bit-identical to the client's
-- (docs/pushdown.md).  Installed as reckon--1.0.sql by src/ext/Makefile;
-- MODULE_PATHNAME is the module's path, filled in by CREATE EXTENSION.
\echo Use "CREATE EXTENSION reckon" to load this file. \quit

-- The digest format this module computes; reckon check pushes down only to
-- the version it was built for.
CREATE FUNCTION reckon_pushdown_version() RETURNS integer
    AS 'MODULE_PATHNAME', 'reckon_pushdown_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The values hash as their type's output text under reckon's pinned session
-- settings (TimeZone=UTC, DateStyle=ISO, extra_float_digits=3, ...); with a
-- setting that would change that text the functions raise an error, so
-- their result depends on their arguments only and they are IMMUTABLE
-- (postgres_fdw ships only immutable functions to a remote server).

-- The canonical encoding of a row (docs/digest.md section 2).
CREATE FUNCTION reckon_row_encoding(VARIADIC "any") RETURNS bytea
    AS 'MODULE_PATHNAME', 'reckon_row_encoding'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- XXH3-128 of that encoding, 32 lowercase hex digits (the row hash).
CREATE FUNCTION reckon_row_hash(VARIADIC "any") RETURNS text
    AS 'MODULE_PATHNAME', 'reckon_row_hash'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Microseconds since 1970-01-01 UTC of a time-column value (a timestamp is
-- taken as UTC, a date as its midnight); the window of a row is
-- (reckon_instant(t) - from) / width in bigint arithmetic.
CREATE FUNCTION reckon_instant(timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'reckon_instant_timestamptz'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_instant(timestamp) RETURNS bigint
    AS 'MODULE_PATHNAME', 'reckon_instant_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_instant(date) RETURNS bigint
    AS 'MODULE_PATHNAME', 'reckon_instant_date'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The window hash: the sum modulo 2^128 of the row hashes of the group's
-- rows, 32 lowercase hex digits.  Partial sums combine by addition, so the
-- aggregate runs in parallel workers.
CREATE FUNCTION reckon_digest_trans(internal, VARIADIC "any") RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_digest_trans'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_digest_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_digest_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION reckon_digest_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'reckon_digest_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_digest_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_digest_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION reckon_digest_final(internal) RETURNS text
    AS 'MODULE_PATHNAME', 'reckon_digest_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE reckon_digest(VARIADIC "any") (
    SFUNC = reckon_digest_trans,
    STYPE = internal,
    SSPACE = 16,
    FINALFUNC = reckon_digest_final,
    COMBINEFUNC = reckon_digest_combine,
    SERIALFUNC = reckon_digest_serial,
    DESERIALFUNC = reckon_digest_deserial,
    PARALLEL = SAFE
);

-- The sum modulo 2^128 of window hashes: digests computed per partition,
-- per shard or per worker combine into the hash of all their rows.
CREATE FUNCTION reckon_hash_sum_trans(internal, text) RETURNS internal
    AS 'MODULE_PATHNAME', 'reckon_hash_sum_trans'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE reckon_hash_sum(text) (
    SFUNC = reckon_hash_sum_trans,
    STYPE = internal,
    SSPACE = 16,
    FINALFUNC = reckon_digest_final,
    COMBINEFUNC = reckon_digest_combine,
    SERIALFUNC = reckon_digest_serial,
    DESERIALFUNC = reckon_digest_deserial,
    PARALLEL = SAFE
);

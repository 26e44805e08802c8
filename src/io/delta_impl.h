/*
 * delta_impl.h - the parts of the Delta reader shared by its files
 * (delta.c: the log and its replay; delta_schema.c: the protocol, the
 * schema, partition values and stats; delta_dv.c: deletion vectors;
 * delta_view.c: the DuckDB view) and by their unit tests.  Not for other
 * modules: they use delta.h.
 */
#ifndef RK_IO_DELTA_IMPL_H
#define RK_IO_DELTA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/buf.h"
#include "core/error.h"
#include "io/delta.h"

/*
 * Z85 ("Deletion Vector Descriptor Schema": the encoding of inline DVs and
 * of the UUID in a `u` descriptor, ZeroMQ RFC 32): len must be a multiple
 * of 5; writes len / 5 * 4 bytes to out.  Returns 0, or -1 on a character
 * outside the alphabet, a bad length or a group above 2^32 - 1.
 */
int rk_delta_z85_decode(const char *s, size_t len, unsigned char *out);

/*
 * Percent-decodes a URI path (RFC 2396, as the log's paths are: "Add File
 * and Remove File"); appends to out.  Returns 0, or -1 on a malformed
 * escape.
 */
int rk_delta_uri_decode(const char *s, rk_buf *out);

/*
 * Parses a serialized RoaringBitmapArray ("Deletion Vector Format": the
 * magic number, then the portable 64-bit format: bucket count, then per
 * bucket its key and a 32-bit portable Roaring bitmap) into sorted row
 * indexes (*rows, malloc'd, caller frees).  what names the DV in messages.
 * RK_EXIT_RUNTIME on anything malformed.  Returns 0 or -1.
 */
int rk_delta_dv_bitmap_parse(const unsigned char *p, size_t len, const char *what, uint64_t **rows, size_t *n,
                             rk_error *err);

/*
 * Loads the deletion vector that descriptor dv (an add action's
 * deletionVector object) describes, for a table rooted at root: storage
 * type `u` (a file beside the data, UUID-named, optional random prefix),
 * `p` (an absolute file: URI) or `i` (inline, Z85).  A file-backed DV is
 * checked (format version byte, its size against sizeInBytes, the CRC-32 of
 * the bitmap, "Deletion Vector File Storage Format"), and the row count
 * against cardinality.  *id gets the DV's unique id ("Derived Fields"),
 * malloc'd.  Errors: RK_EXIT_USAGE for an unknown storage type or a
 * descriptor missing a field, RK_EXIT_RUNTIME for a missing or damaged DV
 * (named).  Returns 0 or -1.
 */
int rk_delta_dv_load(const char *root, json_t *dv, uint64_t **rows, size_t *n, rk_error *err);

/* The unique id of descriptor dv ("Derived Fields": storageType +
 * pathOrInlineDv, then "@" offset when there is one); appended to out.
 * Returns 0, or -1 when dv lacks storageType or pathOrInlineDv. */
int rk_delta_dv_unique_id(json_t *dv, rk_buf *out);

/* ---- the snapshot, shared by delta.c and delta_view.c ---- */

struct rk_delta {
	char *root; /* absolute, no trailing '/' */
	int64_t version;
	char *mapping;  /* "none", "name", "id" */
	json_t *schema; /* metaData.schemaString, parsed */
	rk_delta_column *cols;
	json_t **col_types; /* [ncols]: each column's schema type (borrowed from schema) */
	size_t ncols;
	rk_delta_file *files;
	size_t nfiles;
	rk_delta_value *absent;   /* [ncols] all absent: a file's values without stats */
	const int64_t *no_counts; /* [ncols] all -1 */
	/* the history (rk_delta_options.history, delta_history.c) */
	bool want_history;
	int64_t history_base;
	rk_delta_commit *commits;
	size_t ncommits, capcommits;
	rk_delta_life *lives;
	size_t nlives;
	/* For the writer (io/deltawriter.c): the newest protocol and metaData
	 * actions, and each live file's add action (references, [nfiles]). */
	json_t *protocol, *metadata;
	json_t **adds;
	void **owned; /* every other allocation, freed with the snapshot */
	size_t nowned, capowned;
};

/* One add or remove action of a replay ("Action Reconciliation"). */
typedef struct rk_delta_action {
	char *key;   /* absolute data path, '\n', deletion vector unique id */
	json_t *add; /* the add action (a reference), NULL for a remove */
	size_t seq;
	int64_t version; /* the commit's, -1 from a checkpoint */
} rk_delta_action;

/* The partition values' converter (delta_schema.c): timestamps written
 * without a zone read in one. */
struct rk_delta_zone;

/* A converter of naive partition timestamps in zone (an IANA name, kept by
 * reference), checked to be one DuckDB knows: RK_EXIT_USAGE when not.
 * Returns a new converter (rk_delta_zone_free), or NULL with err. */
struct rk_delta_zone *rk_delta_zone_new(rk_duck *duck, const char *zone, rk_error *err);
void rk_delta_zone_free(struct rk_delta_zone *z);

/* "Protocol Evolution", "Table Features": RK_EXIT_USAGE, naming them, for
 * reader versions and features this reader does not implement.  Returns 0
 * or -1. */
int rk_delta_check_protocol(rk_delta *d, json_t *protocol, rk_error *err);

/* "Schema Serialization Format", "Column Mapping": d's columns from the
 * metaData action meta.  Returns 0 or -1. */
int rk_delta_read_schema(rk_delta *d, json_t *meta, rk_error *err);

/*
 * Fills f's path (from key: up to its '\n'), log path, size, modification
 * time, partition values and stats from add action add (partition values
 * typed in zone; NULL: UTC).  Neither the disk nor the deletion vector is
 * looked at.  RK_EXIT_USAGE for a partition value missing or not of its
 * column's type.  Returns 0 or -1.
 */
int rk_delta_file_fill(rk_delta *d, rk_delta_file *f, const char *key, json_t *add, struct rk_delta_zone *zone,
                       rk_error *err);

/* The time of a commit (rk_delta_commit.time_ms) from its commitInfo (or
 * NULL) and its file's modification time. */
int64_t rk_delta_commit_ms(json_t *commit_info, int64_t file_ms, bool *of_file);

/*
 * The history (delta_history.c): rk_delta_history_commit records commit
 * version (its commitInfo, or NULL; its file's modification time, ms),
 * in version order; rk_delta_history_build then makes the lives from the
 * replay's actions a[0..n), sorted by (key, seq).  Returns 0 or -1.
 */
void rk_delta_history_commit(rk_delta *d, int64_t version, json_t *commit_info, int64_t file_ms);
int rk_delta_history_build(rk_delta *d, const rk_delta_action *a, size_t n, struct rk_delta_zone *zone,
                           rk_error *err);

/* Takes ownership of p (freed by rk_delta_free); returns p. */
void *rk_delta_own(rk_delta *d, void *p);
char *rk_delta_strdup(rk_delta *d, const char *s);

/*
 * The DuckDB type of a Delta schema type (logical names), appended to out;
 * kind, precision and scale describe the top level.  Unknown or
 * unsupported types (variant, void, interval...) are RK_EXIT_USAGE naming
 * column.  Returns 0 or -1.
 */
int rk_delta_type(json_t *type, const char *column, rk_buf *out, rk_delta_kind *kind, int *precision, int *scale,
                  rk_error *err);

#endif

/*
 * spec.h - what a check is asked (rk_check_spec): the two sides, the key,
 * the time column and its windows, the options, and the live counters a
 * running check keeps (rk_check_meter).  Filled by cli/ (tableopts.c) and
 * the loaders, read by the checker (check.h) and its phases.
 */
#ifndef RK_CHECK_SPEC_H
#define RK_CHECK_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/digest.h"
#include "core/timeutil.h"
#include "core/types.h"
#include "io/reader.h"

/* --pushdown: where a PostgreSQL side's window digests are computed. */
typedef enum rk_pushdown {
	RK_PUSHDOWN_OFF = 0, /* stream the rows and digest them here */
	RK_PUSHDOWN_ON,      /* in the server (reckon extension); missing: error 2 */
	RK_PUSHDOWN_AUTO     /* in the server when it has the extension, else stream */
} rk_pushdown;

/*
 * Live counters of a running check, for a progress display: the threads
 * reading a side add to them every RK_METER_EVERY rows (never per row, and
 * without locks), and any thread may read them at any time.  Zeroed by the
 * caller; rk_check_run sets span and phase.
 */
#define RK_METER_EVERY 16384u /* a power of two */

enum { RK_PHASE_START,
       RK_PHASE_DIGEST,
       RK_PHASE_DRILL,
       RK_PHASE_DONE };

typedef struct rk_check_meter {
	_Atomic uint64_t rows[2]; /* rows read per side (0 source, 1 target) */
	_Atomic int64_t done[2];  /* per side: microseconds of the closed range its readers have passed */
	_Atomic int64_t span;     /* the closed range, in microseconds */
	_Atomic int phase;        /* RK_PHASE_* */
} rk_check_meter;

/* Default bound on the rows per side the drilldown holds at once: about
 * 100 bytes each (hashes, time, key text), so ~20 MB per side. */
#define RK_CHECK_LEAF_ROWS 200000

/* One side's digests of every window of a check, known from an earlier
 * check of the same windows in the same snapshot of that side
 * (rk_check_spec.source_known): computing them again would give the same. */
typedef struct rk_check_known {
	size_t nwindows;
	const uint64_t *rows; /* [nwindows] */
	const rk_u128 *hash;  /* [nwindows] */
	const rk_sum *sums;   /* [nwindows * nsum] */
	uint64_t null_time;
} rk_check_known;

typedef struct rk_check_spec {
	rk_reader_opts source;  /* side = "source" */
	rk_reader_opts target;  /* side = "target" */
	const char *const *key; /* key columns, in --key order; none: the target's
	                                 * primary key, else the source's */
	size_t nkey;
	const char *time; /* the time column; NULL: key segments of the first key column
	                                 * (docs/key-segments.md), and from/to/width/bounds unused */
	/* Key segments with key_range: the one segment [key_from, key_to) of
	 * the first key column (key texts, NULL: an open end; reckon repair of
	 * a key list) instead of segments cut from a sample; bounds that are
	 * no exact segment bounds (rk_keyspace_fit) are an input error. */
	bool key_range;
	const char *key_from, *key_to;
	const char *const *sum; /* --sum columns */
	size_t nsum;
	const char *const *columns; /* hashed columns; none: the whole row (every column
	                                 * both sides have, in the target's order) */
	size_t ncolumns;
	const char *const *exclude; /* left out of the whole row (--exclude-columns) */
	size_t nexclude;
	const char *const *types; /* --types items "col:type" */
	size_t ntypes;
	rk_usec from, to, width; /* the check range and window width */
	/* Calendar windows (--timezone): nbounds >= 2 increasing instants,
	 * window w = [bounds[w], bounds[w + 1]); from and to are then bounds[0]
	 * and bounds[nbounds - 1], and width only names the window in reports.
	 * nbounds 0: windows of width from from. */
	rk_usec *bounds; /* owned by whoever filled it (rk_tableopts_free) */
	size_t nbounds;
	const struct rk_tz *tz; /* --timezone: reports show local times beside UTC; or NULL */
	/* --time-column-zone: a zoneless `timestamp` time column holds
	 * wall-clock times of this zone, placed at their instants by
	 * rk_tz_utc's rule (PostgreSQL's AT TIME ZONE); NULL: read as UTC.  It
	 * only places rows: a value's canonical encoding stays digest.md's. */
	const struct rk_tz *time_zone;
	const char *range_warning;   /* shown as a "time_column_zone" warning, or NULL */
	const char *window_text;     /* the window as given ("1mo"), or NULL: width */
	rk_usec settle, now;         /* closedness: end <= now - settle */
	size_t leaf_rows;            /* drilldown memory bound (rows per side) */
	const char *spill_dir;       /* where the drilldown's spill files go (the report's staging
	                                 * directory); NULL: $TMPDIR, else /tmp (io/spill.h) */
	size_t jobs;                 /* parallel readers per PostgreSQL side (0 or 1: one) */
	rk_pushdown pushdown;        /* window digests computed by the server */
	bool findings;               /* run the key-level drilldown */
	bool diagnose;               /* name the likely causes and warn (diagnose.h), find which
	                                 * columns of the changed keys differ (keys.h); needs findings */
	bool no_values;              /* --no-values: the changed columns' names, not their values */
	const char *watermark_query; /* optional, run on the source (PostgreSQL only) */
	rk_check_meter *meter;       /* optional: progress counters to keep up to date */
	/* Optional: the two sides' readers (source, target), open and the
	 * caller's: the check binds and scans them instead of opening its own,
	 * and leaves them open (checks one after another on the same
	 * connections: repair renews their snapshots between them,
	 * rk_reader_renew); each side is then read by one session. */
	rk_reader *const *readers;
	/* Optional, without findings: the source's digests of the windows,
	 * known: the check digests the target only (repair's check after a
	 * change, against the source snapshot the check before it read). */
	const rk_check_known *source_known;
} rk_check_spec;

#endif

/*
 * segments.h - key segments: the windows of a check without --time
 * (docs/key-segments.md).  Not for use outside src/check/.
 */
#ifndef RK_CHECK_SEGMENTS_H
#define RK_CHECK_SEGMENTS_H

#include "check/side.h"

/* Rows a segment is cut to hold, about: small enough that a damaged one is
 * a small drilldown leaf (the time windows' 64 slices each have no
 * counterpart here) and the rerun list names little more than the damage;
 * the digest pass costs the same however many there are. */
#define RK_SEGMENT_ROWS 10000

/* Sampled keys per segment the boundaries are chosen from. */
#define RK_SEGMENT_SAMPLES 64

/* More segments than this: wider ones. */
#define RK_SEGMENT_MAX 10000

/*
 * Cuts the first key column of both sides (bound, typed) into segments:
 * res->keyspace from its type, boundaries at quantiles of a sample of the
 * source's keys (one segment when the source cannot be sampled or holds
 * fewer than two segments' rows), res->bounds, seg_text, nwindows and
 * nclosed (every segment is closed); each side's reader is told the
 * keyspace.  0, or -1 with err (RK_EXIT_USAGE for a key type that cannot be
 * segmented, or a side that cannot read key ranges).
 */
int rk_segments_plan(const rk_check_spec *spec, rk_side sides[2], const rk_plan *p, rk_check_result *res,
                     rk_error *err);

#endif

/*
 * drill_plan.h - the drilldown's planner (drill_plan.c): which ranges of the
 * damaged windows a round reads whole (leaves) and which it splits into
 * pieces whose digests it compares.  Pure: the unit tests drive it without
 * a server.  Not for use outside src/check/.
 */
#ifndef RK_CHECK_DRILL_PLAN_H
#define RK_CHECK_DRILL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/timeutil.h"
#include "core/types.h"
#include "io/reader.h"

/*
 * The planner.  A node is a range of one window still in question - the
 * rows of [lo, hi) whose key hash has hval in its low bits bits - with the
 * rows each side has there (known from the round that found it).
 */
typedef struct rk_node {
	size_t window;
	rk_usec lo, hi;
	uint32_t bits;
	uint64_t hval;
	uint64_t cnt[2];
} rk_node;

typedef struct rk_nodes {
	rk_node *v;
	size_t n, cap;
} rk_nodes;

void rk_nodes_push(rk_nodes *q, const rk_node *node);

/* One entry of a round: a leaf, whose rows are collected, or a piece of a
 * split node, whose digest each side computes. */
typedef struct rk_entry {
	rk_node node;
	bool leaf;
	uint32_t part;              /* a piece: the index of the node it splits among the round's parts */
	uint32_t piece;             /* ... and its own among that node's pieces */
	uint64_t sub_cnt[2];        /* its rows per side ... */
	rk_u128 sub_hash[2];        /* ... their hash ... */
	rk_usec min_t[2], max_t[2]; /* ... and their time span (empty: min > max) */
} rk_entry;

typedef struct rk_drill_round {
	rk_entry *entries; /* sorted by (lo, hval): the pieces of a split instant share lo */
	size_t nentries;
	rk_drill_part *parts; /* the split nodes, as a server computes their pieces */
	size_t nparts;
	uint32_t *part_first; /* [nparts + 1]: part i's pieces are at piece_entry[part_first[i]...] */
	size_t *piece_entry;  /* the entry of each piece */
	size_t nleaves;
	size_t cap;
} rk_drill_round;

/* Most pieces one node is split into in one round. */
#define RK_DRILL_FANOUT 64

/*
 * Plans one round over the queued nodes: a node whose rows fit leaf rows on
 * each side (or that cannot be split: one instant, all 64 key-hash bits) is
 * a leaf, taken while the round's leaves fit leaf rows per side (the first
 * always); later ones are appended to wait.  A bigger node is split, by
 * time into pieces of equal width, or, when it is one instant, by more
 * bits of the key hash: into enough pieces that an even spread lands at
 * leaf size (eager: always RK_DRILL_FANOUT, for a server, to whom a piece
 * more costs nothing).  split_time[w] is set for each window split by time.
 * rd is reset first; rk_drill_round_free frees it.
 */
void rk_drill_plan(const rk_node *queue, size_t nq, uint64_t leaf, bool eager, rk_drill_round *rd,
                   rk_nodes *wait, bool *split_time);

/* After a round: each piece whose digests differ, as a node with its
 * rows' counts and shrunk to its rows' time span, appended to next. */
void rk_drill_next(const rk_drill_round *rd, rk_nodes *next);

void rk_drill_round_free(rk_drill_round *rd);

#endif

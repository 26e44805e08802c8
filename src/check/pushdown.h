/*
 * pushdown.h - a side's digest pass computed by the server (pushdown.c).
 * Not for use outside src/check/.
 */
#ifndef RK_CHECK_PUSHDOWN_H
#define RK_CHECK_PUSHDOWN_H

#include "check/side.h"

/*
 * The digest pass of one side object computed by the server: 0 done, -1
 * with s->err, or 1 when the side is to stream its rows instead (pushdown
 * off, a CSV side, or --pushdown=auto without the extension).
 */
int rk_pushdown_side(rk_side *s);

#endif

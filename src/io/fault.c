/*
 * fault.c - the product's side of io/fault.h: no fault, ever.  The test
 * build links tests/hooks/fault.c in place of this file.
 */
#include "io/fault.h"

rk_fault_action rk_fault(const char *step)
{
	(void)step;
	return RK_FAULT_NONE;
}

/*
 * rk-deltacheck.c - rk-deltacheck DIR...: the integration tests' checker of
 * the Delta tables reckon wrote (deltacheck.h says what it checks).  Prints
 * each violation; exit status 0 when every table passes, 1 otherwise.
 */
#include <stdio.h>

#include "deltacheck.h"

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: rk-deltacheck DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		rk_buf report = RK_BUF_INIT;
		int n = rk_test_delta_check(argv[i], &report);

		if (n != 0) {
			fputs(rk_buf_cstr(&report), stderr);
			status = 1;
		}
		rk_buf_free(&report);
	}
	return status;
}

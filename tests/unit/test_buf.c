/*
 * test_buf.c - the growable buffer (core/buf.c): it grows by doubling and
 * only when it must.  rk_buf_printf once reallocated on every call, which
 * made a unit test of 40,000 printf lines take seven minutes under
 * AddressSanitizer (each realloc a copy and a quarantine).  No server needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"

static void test_printf_reuses_room(void **state)
{
	rk_buf b = RK_BUF_INIT;
	const char *before;
	size_t cap;

	(void)state;
	rk_buf_grow(&b, 1000);
	before = b.data;
	cap = b.cap;
	for (int i = 0; i < 50; i++)
		rk_buf_printf(&b, "%02d,", i);
	assert_ptr_equal(b.data, before);
	assert_int_equal(b.cap, cap);
	assert_int_equal(b.len, 150);
	assert_memory_equal(b.data, "00,01,02,", 9);
	rk_buf_free(&b);
}

static void test_growth_doubles(void **state)
{
	rk_buf b = RK_BUF_INIT;
	size_t reallocs = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		rk_buf_printf(&b, "line %d\n", i);
		if (b.cap != cap) {
			reallocs++;
			cap = b.cap;
		}
	}
	assert_true(reallocs < 20);
	assert_string_equal(rk_buf_cstr(&b) + b.len - 11, "line 99999\n");
	rk_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printf_reuses_room),
		cmocka_unit_test(test_growth_doubles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fuzz_csv.c - libFuzzer harness for the CSV reader (io/csvreader.c) on top
 * of libcsv, through the reader's own entry points: open (which reads the
 * header), columns, bind, scan.
 *
 * Input: one byte of options - the delimiter (, ; tab |), the NULL marker
 * (PostgreSQL's convention, \N, NULL, the empty string), which header
 * columns to bind (all, the first, the last, all in reverse order) and
 * whether the row callback refuses a value starting with '!' - then the
 * file's bytes.  The file is a memory file opened by its /proc path, so
 * the reader's own open, read and block handling run.  Every field handed
 * over is touched (AddressSanitizer checks the pointers); a second scan
 * of the unchanged file must deliver the same rows with the same outcome.
 */
#define _GNU_SOURCE   /* memfd_create */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/reader_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

typedef struct rk_fz_scan {
	size_t ncolumns;
	bool refuse_bang;
	size_t rows;
	uint64_t sum;   /* of the bytes handed over, to compare two scans */
} rk_fz_scan;

static int rk_fz_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_fz_scan *s = ctx;

	s->rows++;
	for (size_t i = 0; i < s->ncolumns; i++) {
		RK_FUZZ_CHECK(f[i].p != NULL);
		RK_FUZZ_CHECK(!f[i].null || f[i].len == 0);
		for (size_t k = 0; k < f[i].len; k++)
			s->sum = s->sum * 31 + (unsigned char)f[i].p[k];
		s->sum = s->sum * 31 + (f[i].null ? 7 : 11);
		if (s->refuse_bang && f[i].len && f[i].p[0] == '!') {
			err->field = (int)i;
			return rk_error_set(err, RK_EXIT_USAGE, "value '%.*s' refused", (int)f[i].len, f[i].p);
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char delims[] = {',', ';', '\t', '|'};
	static const char *const nulls[] = {NULL, "\\N", "NULL", ""};
	rk_reader_opts o = {.side = "source"};
	char delim[2] = {0, 0};
	rk_fz_scan s1 = {0}, s2 = {0};
	rk_scan sc = {0};
	rk_error err;
	char path[64], **names = NULL;
	const char **bind = NULL;
	rk_type *types = NULL;
	size_t ncols = 0, nbind = 0;
	void *impl;
	int fd, rc1, rc2, mode;

	if (size < 1)
		return 0;
	delim[0] = delims[data[0] & 3];
	rk_reader_setting_add(&o, "csv-delimiter", delim);
	rk_reader_setting_add(&o, "csv-null", nulls[data[0] >> 2 & 3]);
	mode = data[0] >> 4 & 3;
	s1.refuse_bang = s2.refuse_bang = data[0] >> 6 & 1;

	fd = memfd_create("fuzz.csv", MFD_CLOEXEC);
	RK_FUZZ_CHECK(fd >= 0);
	RK_FUZZ_CHECK(size == 1 || write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	rk_error_clear(&err);
	impl = rk_csvreader_open(&o, path, &err);
	if (!impl) {
		RK_FUZZ_CHECK(err.code != 0 && err.msg[0]);
		goto done;
	}
	RK_FUZZ_CHECK(rk_csvreader_ops.columns(impl, &names, &ncols, &err) == 0);
	bind = calloc(ncols + 1, sizeof *bind);
	types = calloc(ncols + 1, sizeof *types);
	RK_FUZZ_CHECK(bind && types);
	for (size_t i = 0; i < ncols; i++) {
		RK_FUZZ_CHECK(names[i] != NULL);
		if (mode == 0)
			bind[nbind++] = names[i];
		else if (mode == 3)
			bind[nbind++] = names[ncols - 1 - i];
	}
	if (mode == 1 && ncols)
		bind[nbind++] = names[0];
	if (mode == 2 && ncols)
		bind[nbind++] = names[ncols - 1];
	if (rk_csvreader_ops.bind(impl, bind, nbind, types, &err) < 0) {
		/* the same name twice, or two names equal but for case */
		RK_FUZZ_CHECK(err.code == RK_EXIT_USAGE);
		goto close;
	}
	s1.ncolumns = s2.ncolumns = nbind;
	rc1 = rk_csvreader_ops.scan(impl, &sc, rk_fz_row, &s1, &err);
	RK_FUZZ_CHECK(rc1 == 0 || (err.code != 0 && err.msg[0]));
	rk_error_clear(&err);
	rc2 = rk_csvreader_ops.scan(impl, &sc, rk_fz_row, &s2, &err);
	RK_FUZZ_CHECK(rc1 == rc2 && s1.rows == s2.rows && s1.sum == s2.sum);
close:
	rk_csvreader_ops.free(impl);
done:
	for (size_t i = 0; i < ncols; i++)
		free(names[i]);
	free(names);
	free(bind);
	free(types);
	close(fd);
	return 0;
}

#include "io/slurp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int rk_slurp(const char *path, const char *what, size_t max, rk_buf *out, rk_error *err)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	struct stat st;
	char chunk[65536];
	size_t n;

	rk_buf_reset(out);
	if (!f) {
		rk_error_set(err, RK_EXIT_USAGE, "cannot read %s '%s': %s", what, path, strerror(errno));
		return rk_error_hint(err, "check the path");
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!in)
			fclose(f);
		rk_error_set(err, RK_EXIT_USAGE, "%s '%s' is a directory", what, path);
		return rk_error_hint(err, "name the file itself");
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (out->len + n > max) {
			if (!in)
				fclose(f);
			rk_error_set(err, RK_EXIT_USAGE, "%s '%s' is larger than %zu bytes", what, path, max);
			return rk_error_hint(err, "is it the right file? a %s is small text", what);
		}
		rk_buf_append(out, chunk, n);
	}
	if (ferror(f)) {
		int e = errno;

		if (!in)
			fclose(f);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read %s '%s': %s", what, path, strerror(e));
	}
	if (!in)
		fclose(f);
	rk_buf_cstr(out);
	return 0;
}

/*
 * diagnose_warn.c - the diagnosis's warnings (diagnose.h): what a verdict
 * cannot carry - a key no unique index backs, transactions still open at
 * the source when its newest windows were judged, sessions the source role
 * cannot see, a check that could not be made - each a kind and a message.
 * The patterns and their causes are diagnose.c.
 */
#include "check/diagnose.h"

#include <stdlib.h>

#include "core/buf.h"
#include "core/timeutil.h"

rk_diagnosis *rk_diagnosis_of(rk_check_result *res)
{
	if (!res->diagnosis)
		res->diagnosis = rk_xcalloc(1, sizeof *res->diagnosis);
	return res->diagnosis;
}

static void rk_diag_warning(rk_diagnosis *d, const char *kind, rk_buf *msg)
{
	d->warnings = rk_xrealloc(d->warnings, (d->nwarnings + 1) * sizeof *d->warnings);
	d->warnings[d->nwarnings].kind = kind;
	d->warnings[d->nwarnings].message = rk_xstrdup(rk_buf_cstr(msg));
	d->nwarnings++;
	rk_buf_reset(msg);
}

void rk_diagnose_note(rk_check_result *res, const char *kind, const char *message)
{
	rk_buf msg = RK_BUF_INIT;

	rk_buf_puts(&msg, message);
	rk_diag_warning(rk_diagnosis_of(res), kind, &msg);
	rk_buf_free(&msg);
}

int rk_diagnose_warn(rk_check_result *res, rk_reader *source, const size_t *key_index, size_t nkey,
                     const int *own_pids, size_t nown)
{
	rk_diagnosis *d = rk_diagnosis_of(res);
	rk_usec closed_end = res->bounds[res->nclosed];
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
	rk_buf msg = RK_BUF_INIT;
	rk_open_xacts ox;
	rk_error err;
	bool unique;
	int rc;

	rk_error_clear(&err);
	rc = rk_reader_key_unique(source, key_index, nkey, &unique, &err);
	d->key_unique = rc == 0 && unique;
	if (rc == 0 && !unique) {
		rk_buf_printf(&msg, "no primary key or unique index of the source makes the key (");
		for (size_t i = 0; i < res->nkey; i++)
			rk_buf_printf(&msg, "%s%s", i ? ", " : "", res->key_names[i]);
		rk_buf_puts(&msg, ") unique: a key the source holds twice is found only inside windows that differ");
		rk_diag_warning(d, "key_not_unique", &msg);
	} else if (rc < 0) {
		rk_buf_printf(&msg, "whether the source's key is unique was not checked: %s", err.msg);
		rk_diag_warning(d, "not_checked", &msg);
	}
	if (res->nclosed == 0) {
		rk_buf_free(&msg);
		return 0;
	}
	rk_error_clear(&err);
	rc = rk_reader_open_xacts(source, closed_end, own_pids, nown, &ox, &err);
	if (rc == 0 && ox.count) {
		rk_buf_printf(&msg, "%llu source transaction%s open since before %s, the end of the newest closed window "
		                    "(oldest: session %d%s%s%s, since %s): rows %s writes may still land in windows just judged",
		              (unsigned long long)ox.count, ox.count == 1 ? "" : "s", rk_time_format(closed_end, a),
		              ox.oldest_pid, ox.oldest_app[0] ? " '" : "", ox.oldest_app, ox.oldest_app[0] ? "'" : "",
		              rk_time_format(ox.oldest, b), ox.count == 1 ? "it" : "they");
		rk_diag_warning(d, "open_transaction", &msg);
	}
	if (rc == 0 && !ox.sees_all) {
		rk_buf_puts(&msg, "the source role cannot see other roles' sessions (it needs pg_read_all_stats): "
		                  "their open transactions were not checked");
		rk_diag_warning(d, "sessions_hidden", &msg);
	} else if (rc < 0) {
		rk_buf_printf(&msg, "open transactions on the source were not checked: %s", err.msg);
		rk_diag_warning(d, "not_checked", &msg);
	}
	rk_buf_free(&msg);
	return 0;
}

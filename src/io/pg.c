/*
 * pg.c - the libpq wrapper: connections with reckon's own session settings,
 * statements checked against the result shape they promise, COPY in and out,
 * and messages that carry the server's words but never a password.
 */
#include "io/pg.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "rk_sql.h"

#define RK_PG_MASK "********"
#define RK_PG_CONNECT_TIMEOUT "30" /* seconds, unless the user chose one */

struct rk_pg {
	PGconn *conn;
	char *what;     /* "source", "target", ... */
	char *desc;     /* redacted conninfo (or the location when it was empty) */
	char *location; /* "host=... port=... dbname=..." of the live session */
	bool in_copy_in;
	char copy_label[64];
	PGcancel *cancel; /* made at connect: rk_pg_cancel may run on another thread */
};

struct rk_pg_result {
	PGresult *res;
};

/* ------------------------------------------------------------------------
 * Redaction
 *
 * The redactor walks a conninfo the way libpq does and masks the value of
 * every keyword libpq itself counts as a secret (and of every keyword it
 * does not know).  Where the text is malformed it masks more rather than less: an
 * unquoted password value runs up to the next "key=" word, and a URI's user
 * information runs up to the last '@'.  It also reports the masked spans so
 * the same secrets can be scrubbed from libpq's own messages, some of which
 * quote the conninfo they failed to parse.
 * ---------------------------------------------------------------------- */

#define RK_PG_MAX_SECRETS 8

typedef struct rk_pg_secrets {
	size_t n;
	struct {
		size_t off, len;
	} span[RK_PG_MAX_SECRETS];
} rk_pg_secrets;

static void rk_pg_secret_add(rk_pg_secrets *sec, size_t off, size_t len)
{
	if (sec && sec->n < RK_PG_MAX_SECRETS && len > 0) {
		sec->span[sec->n].off = off;
		sec->span[sec->n].len = len;
		sec->n++;
	}
}

static bool rk_pg_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* libpq's own keyword list, read once: the keywords and whether libpq
 * itself treats each as a secret (PQconndefaults' dispchar "*": password,
 * sslpassword and whatever the linked libpq adds).  Kept for the life of
 * the process. */
static PQconninfoOption *rk_pg_keywords;
static pthread_once_t rk_pg_keywords_once = PTHREAD_ONCE_INIT;

static void rk_pg_keywords_init(void)
{
	rk_pg_keywords = PQconndefaults();
}

/*
 * Whether the value of keyword k[0..n) is to be hidden.  A keyword libpq
 * knows is hidden when libpq says it is a secret; one it does not know
 * (misspelled: "passwd", "pwd", "PASSWORD") is hidden too: libpq refuses the
 * conninfo, quoting it, and the value is most likely the secret it was meant
 * to carry.  Only when libpq's list cannot be had (out of memory) is every
 * value hidden.
 */
static bool rk_pg_secret_key(const char *k, size_t n)
{
	pthread_once(&rk_pg_keywords_once, rk_pg_keywords_init);
	if (!rk_pg_keywords)
		return true;
	for (const PQconninfoOption *o = rk_pg_keywords; o->keyword; o++)
		if (strlen(o->keyword) == n && memcmp(o->keyword, k, n) == 0)
			return o->dispchar && strchr(o->dispchar, '*') != NULL;
	return true;
}

static bool rk_pg_is_uri(const char *s)
{
	return strncasecmp(s, "postgresql://", 13) == 0 || strncasecmp(s, "postgres://", 11) == 0;
}

/* Percent-decodes [s, s+n) into b (invalid escapes are kept as they are). */
static void rk_pg_pct_decode(const char *s, size_t n, rk_buf *b)
{
	for (size_t i = 0; i < n; i++) {
		int h, l;

		if (s[i] == '%' && i + 2 < n && (h = rk_hexval(s[i + 1])) >= 0 &&
		    (l = rk_hexval(s[i + 2])) >= 0) {
			rk_buf_putc(b, (char)(h * 16 + l));
			i += 2;
		} else {
			rk_buf_putc(b, s[i]);
		}
	}
}

static void rk_pg_redact_uri(const char *s, size_t base, rk_buf *out, rk_pg_secrets *sec)
{
	size_t plen = strncasecmp(s, "postgresql://", 13) == 0 ? 13 : 11;
	const char *rest = s + plen;
	const char *at = strrchr(rest, '@');
	const char *q;

	rk_buf_append(out, s, plen);
	if (at) {
		const char *colon = memchr(rest, ':', (size_t)(at - rest));

		if (colon) {
			rk_buf_append(out, rest, (size_t)(colon + 1 - rest));
			rk_buf_puts(out, RK_PG_MASK);
			rk_pg_secret_add(sec, base + (size_t)(colon + 1 - s), (size_t)(at - colon - 1));
		} else {
			rk_buf_append(out, rest, (size_t)(at - rest));
		}
		rest = at;
	}
	q = strchr(rest, '?');
	if (!q) {
		rk_buf_puts(out, rest);
		return;
	}
	rk_buf_append(out, rest, (size_t)(q + 1 - rest));
	for (const char *p = q + 1; *p;) {
		size_t plen2 = strcspn(p, "&");
		const char *eq = memchr(p, '=', plen2);
		bool secret = false;

		if (eq) {
			rk_buf key = RK_BUF_INIT;

			rk_pg_pct_decode(p, (size_t)(eq - p), &key);
			/* "ssl" is the URI's alias for sslmode, not a keyword */
			secret = !(key.len == 3 && memcmp(key.data, "ssl", 3) == 0) &&
			         rk_pg_secret_key(rk_buf_cstr(&key), key.len);
			rk_buf_free(&key);
		}
		if (secret) {
			rk_buf_append(out, p, (size_t)(eq + 1 - p));
			rk_buf_puts(out, RK_PG_MASK);
			rk_pg_secret_add(sec, base + (size_t)(eq + 1 - s), (size_t)(p + plen2 - eq - 1));
		} else {
			rk_buf_append(out, p, plen2);
		}
		p += plen2;
		if (*p == '&')
			rk_buf_putc(out, *p++);
	}
}

/* Key/value conninfo, tokenised like libpq's conninfo_parse(). */
static void rk_pg_redact_kv(const char *s, rk_buf *out, rk_pg_secrets *sec)
{
	const char *p = s;

	while (*p) {
		const char *key, *key_end, *val, *val_end;
		bool secret;

		while (rk_pg_blank(*p))
			rk_buf_putc(out, *p++);
		if (!*p)
			break;
		key = p;
		while (*p && *p != '=' && !rk_pg_blank(*p))
			p++;
		key_end = p;
		while (rk_pg_blank(*p))
			p++;
		if (*p != '=') {
			/* not "key=value": libpq refuses it; show the word as it is */
			rk_buf_append(out, key, (size_t)(key_end - key));
			p = key_end;
			continue;
		}
		p++;
		while (rk_pg_blank(*p))
			p++;
		rk_buf_append(out, key, (size_t)(p - key));
		val = p;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		} else {
			for (; *p && !rk_pg_blank(*p); p++)
				if (*p == '\\' && p[1])
					p++;
		}
		val_end = p;
		secret = rk_pg_secret_key(key, (size_t)(key_end - key));
		if (!secret) {
			rk_buf_append(out, val, (size_t)(val_end - val));
			continue;
		}
		if (*val != '\'') {
			/* "password=two words host=h" is malformed: libpq would read
			 * "words" as a keyword, but it is most likely part of the
			 * password, so mask up to the next word holding a '=' */
			for (;;) {
				const char *w = p, *we;

				while (rk_pg_blank(*w))
					w++;
				we = w;
				while (*we && !rk_pg_blank(*we))
					we++;
				if (w == we || memchr(w, '=', (size_t)(we - w)))
					break;
				p = val_end = we;
			}
		}
		rk_buf_puts(out, RK_PG_MASK);
		rk_pg_secret_add(sec, (size_t)(val - s), (size_t)(val_end - val));
	}
}

static void rk_pg_redact_buf(const char *conninfo, rk_buf *out, rk_pg_secrets *sec)
{
	const char *s = conninfo ? conninfo : "";
	size_t lead = 0;

	while (rk_pg_blank(s[lead]))
		lead++;
	if (rk_pg_is_uri(s + lead)) {
		rk_buf_append(out, s, lead);
		rk_pg_redact_uri(s + lead, lead, out, sec);
	} else {
		rk_pg_redact_kv(s, out, sec);
	}
}

void rk_pg_redact(const char *conninfo, char *out, size_t outsz)
{
	rk_buf b = RK_BUF_INIT;
	size_t n;

	if (outsz == 0)
		return;
	rk_pg_redact_buf(conninfo, &b, NULL);
	n = b.len < outsz - 1 ? b.len : outsz - 1;
	if (n)
		memcpy(out, b.data, n);
	out[n] = '\0';
	rk_buf_free(&b);
}

/* Whether PQconndefaults marks keyword as a secret (dispchar "*"). */
static bool rk_pg_secret_keyword(const PQconninfoOption *defs, const char *keyword)
{
	for (const PQconninfoOption *d = defs; d && d->keyword; d++)
		if (!strcmp(d->keyword, keyword))
			return d->dispchar && d->dispchar[0] == '*';
	/* a keyword this libpq does not list cannot be told apart: keep it out */
	return true;
}

int rk_pg_conninfo_public(const char *conninfo, rk_buf *out, rk_error *err)
{
	char *why = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &why);
	PQconninfoOption *defs;
	bool first = true;

	if (!opts) {
		rk_error_set(err, RK_EXIT_USAGE, "cannot parse the connection string: %s", why ? why : "out of memory");
		PQfreemem(why);
		return rk_error_hint(err, "write key=value pairs (host=... dbname=...) or a postgresql:// URI");
	}
	defs = PQconndefaults();
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || rk_pg_secret_keyword(defs, o->keyword))
			continue;
		rk_buf_printf(out, "%s%s=", first ? "" : " ", o->keyword);
		first = false;
		if (*o->val && !strpbrk(o->val, " \t\n\\'")) {
			rk_buf_puts(out, o->val);
			continue;
		}
		/* libpq's quoting: single quotes, backslash before ' and \ */
		rk_buf_putc(out, '\'');
		for (const char *p = o->val; *p; p++) {
			if (*p == '\'' || *p == '\\')
				rk_buf_putc(out, '\\');
			rk_buf_putc(out, *p);
		}
		rk_buf_putc(out, '\'');
	}
	PQconninfoFree(opts);
	PQconninfoFree(defs);
	return 0;
}

static const char *rk_pg_find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	for (size_t i = 0; i + nlen <= hlen; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
			return hay + i;
	return NULL;
}

/* Replaces every occurrence of needle in b (from offset 0) with with. */
static void rk_pg_replace_all(rk_buf *b, const char *needle, size_t nlen, const char *with)
{
	rk_buf o = RK_BUF_INIT;
	const char *p, *end, *hit;

	if (nlen == 0 || b->len < nlen)
		return;
	p = b->data;
	end = b->data + b->len;
	while ((hit = rk_pg_find(p, (size_t)(end - p), needle, nlen)) != NULL) {
		rk_buf_append(&o, p, (size_t)(hit - p));
		rk_buf_puts(&o, with);
		p = hit + nlen;
	}
	if (p == b->data) {
		rk_buf_free(&o);
		return;
	}
	rk_buf_append(&o, p, (size_t)(end - p));
	rk_buf_free(b);
	*b = o;
}

/* Removes one secret from a message: anywhere when it is long enough to be
 * unambiguous, only as a whole "quoted" fragment when it is short. */
static void rk_pg_scrub_one(rk_buf *msg, const char *secret, size_t len)
{
	if (len == 0)
		return;
	if (len >= 3) {
		rk_pg_replace_all(msg, secret, len, RK_PG_MASK);
	} else {
		char q[8];

		q[0] = '"';
		memcpy(q + 1, secret, len);
		q[len + 1] = '"';
		rk_pg_replace_all(msg, q, len + 2, "\"" RK_PG_MASK "\"");
	}
}

/* Scrubs the secrets of conninfo out of a libpq message held in msg. */
static void rk_pg_scrub(rk_buf *msg, const char *conninfo)
{
	rk_pg_secrets sec = { 0 };
	rk_buf red = RK_BUF_INIT;

	if (!conninfo || !*conninfo)
		return;
	rk_pg_redact_buf(conninfo, &red, &sec);
	rk_pg_replace_all(msg, conninfo, strlen(conninfo), rk_buf_cstr(&red));
	for (size_t i = 0; i < sec.n; i++) {
		const char *s = conninfo + sec.span[i].off;
		size_t len = sec.span[i].len;
		rk_buf dec = RK_BUF_INIT;

		rk_pg_scrub_one(msg, s, len);
		/* the forms libpq may have decoded: unquoted, percent-decoded */
		if (len >= 2 && s[0] == '\'')
			rk_pg_scrub_one(msg, s + 1, len - 2);
		rk_pg_pct_decode(s, len, &dec);
		rk_pg_scrub_one(msg, dec.data ? dec.data : "", dec.len);
		rk_buf_free(&dec);
		/* and each word of a value libpq split at blanks */
		for (size_t w = 0; w < len;) {
			size_t we = w;

			while (we < len && !rk_pg_blank(s[we]))
				we++;
			if (we > w && we - w < len)
				rk_pg_scrub_one(msg, s + w, we - w);
			w = we + 1;
		}
	}
	rk_buf_free(&red);
}

/* ------------------------------------------------------------------------
 * Messages
 * ---------------------------------------------------------------------- */

/*
 * Copies a libpq message into b on one line: trailing newlines dropped, a
 * continuation line joined with a blank when it goes on with a lower case
 * word and with "; " when it starts a new sentence, runs of blanks squeezed.
 */
static void rk_pg_tidy(rk_buf *b, const char *msg)
{
	const char *p = msg ? msg : "";

	rk_buf_reset(b);
	while (*p) {
		if (*p == '\n' || *p == '\r') {
			while (rk_pg_blank(*p))
				p++;
			if (!*p)
				break;
			rk_buf_puts(b, *p >= 'a' && *p <= 'z' ? " " : "; ");
			continue;
		}
		if (rk_pg_blank(*p)) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != '\n' && *p != '\r')
				rk_buf_putc(b, ' ');
			continue;
		}
		rk_buf_putc(b, *p++);
	}
	while (b->len && (b->data[b->len - 1] == ' ' || b->data[b->len - 1] == ';'))
		b->len--;
	rk_buf_cstr(b);
}

static void rk_pg_err_start(rk_error *err)
{
	err->field = -1;
	err->sqlstate[0] = '\0';
}

static void rk_pg_set_sqlstate(rk_error *err, const char *state)
{
	if (state && strlen(state) == 5)
		memcpy(err->sqlstate, state, 6);
	else
		err->sqlstate[0] = '\0';
}

/*
 * Fills err from a failed statement: the server's primary message and
 * detail, its hint and SQLSTATE; a client-side failure (connection lost)
 * gets libpq's text and SQLSTATE 08006 so rk_pg_error_is_connection() knows.
 */
static int rk_pg_fail_ctx(rk_pg *pg, const PGresult *res, const char *label, bool with_context, rk_error *err)
{
	const char *context = res && with_context ? PQresultErrorField(res, PG_DIAG_CONTEXT) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
	const char *hint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	bool lost = PQstatus(pg->conn) == CONNECTION_BAD;
	rk_buf text = RK_BUF_INIT;

	if (primary) {
		rk_buf_puts(&text, primary);
		if (detail) {
			rk_buf_puts(&text, " (");
			rk_buf_puts(&text, detail);
			rk_buf_putc(&text, ')');
		}
		if (context) {
			/* COPY FROM says where: "COPY t, line 2, column id: ..." */
			rk_buf_puts(&text, " at ");
			rk_buf_append(&text, context, strcspn(context, "\n"));
		}
	} else {
		const char *m = res ? PQresultErrorMessage(res) : "";

		rk_pg_tidy(&text, m && *m ? m : PQerrorMessage(pg->conn));
		if (text.len == 0)
			rk_buf_puts(&text, lost ? "connection lost" : "unknown error");
	}
	rk_pg_err_start(err);
	rk_error_set(err, RK_EXIT_RUNTIME, "%s failed on %s '%s': %s", label, pg->what, pg->desc,
	             rk_buf_cstr(&text));
	rk_buf_free(&text);
	if (state)
		rk_pg_set_sqlstate(err, state);
	else if (lost)
		rk_pg_set_sqlstate(err, "08006");
	if (hint)
		rk_error_hint(err, "%s", hint);
	else if (lost || rk_pg_error_is_connection(err))
		rk_error_hint(err, "the connection to the server was lost; check the server and its log, "
		                   "then run again");
	return -1;
}

static int rk_pg_fail(rk_pg *pg, const PGresult *res, const char *label, rk_error *err)
{
	return rk_pg_fail_ctx(pg, res, label, false, err);
}

static int rk_pg_shape_error(rk_pg *pg, const char *label, const char *what, rk_error *err)
{
	rk_pg_err_start(err);
	return rk_error_set(err, RK_EXIT_RUNTIME, "%s on %s '%s' returned %s", label, pg->what, pg->desc, what);
}

/* Reads and discards whatever the connection still has to say, leaving
 * any COPY state, so the next statement starts from a clean protocol. */
static void rk_pg_drain(rk_pg *pg)
{
	PGresult *res;

	while ((res = PQgetResult(pg->conn)) != NULL) {
		ExecStatusType st = PQresultStatus(res);

		PQclear(res);
		if (st == PGRES_COPY_OUT) {
			char *buf;
			int n;

			while ((n = PQgetCopyData(pg->conn, &buf, 0)) > 0)
				PQfreemem(buf);
		} else if (st == PGRES_COPY_IN) {
			PQputCopyEnd(pg->conn, "aborted by reckon");
		} else if (st == PGRES_COPY_BOTH) {
			break;
		}
		if (PQstatus(pg->conn) == CONNECTION_BAD)
			break;
	}
}

/* ------------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------- */

static char *rk_pg_make_location(PGconn *conn)
{
	rk_buf b = RK_BUF_INIT;
	const char *host = PQhost(conn);
	const char *port = PQport(conn);
	const char *db = PQdb(conn);

	rk_buf_printf(&b, "host=%s", host && *host ? host : "localhost");
	if (port && *port)
		rk_buf_printf(&b, " port=%s", port);
	if (db && *db)
		rk_buf_printf(&b, " dbname=%s", db);
	rk_buf_cstr(&b);
	return b.data;
}

static int rk_pg_pin_session(rk_pg *pg, rk_error *err)
{
	if (strcmp(pg_encoding_to_char(PQclientEncoding(pg->conn)), "UTF8") != 0 &&
	    PQsetClientEncoding(pg->conn, "UTF8") != 0) {
		rk_buf text = RK_BUF_INIT;

		rk_pg_tidy(&text, PQerrorMessage(pg->conn));
		rk_pg_err_start(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot set client_encoding UTF8 on %s '%s': %s", pg->what,
		             pg->desc, rk_buf_cstr(&text));
		rk_buf_free(&text);
		return -1;
	}
	return rk_pg_exec(pg, "session settings", rk_sql_session_settings, 0, NULL, RK_PG_ONE_ROW, NULL, err);
}

/* Server notices ("table does not exist, skipping"...) are diagnostics, not
 * results: they go to the log at info level instead of raw to stderr. */
static void rk_pg_on_notice(void *arg, const char *message)
{
	const rk_pg *pg = arg;
	size_t n = strlen(message);

	while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' '))
		n--;
	rk_log_info("%s: server says: %.*s", pg->what, (int)n, message);
}

rk_pg *rk_pg_connect(const char *conninfo, const char *what, rk_error *err)
{
	/* Order matters: the expanded dbname overrides what comes before it
	 * (a default connect_timeout) and is overridden by what comes after
	 * (the client encoding reckon needs). */
	const char *keys[5];
	const char *vals[5];
	int n = 0;
	rk_pg *pg;
	rk_buf red = RK_BUF_INIT;
	const char *ci = conninfo ? conninfo : "";

	if (!getenv("PGCONNECT_TIMEOUT")) {
		keys[n] = "connect_timeout";
		vals[n++] = RK_PG_CONNECT_TIMEOUT;
	}
	keys[n] = "dbname";
	vals[n++] = ci;
	keys[n] = "fallback_application_name";
	vals[n++] = "reckon";
	keys[n] = "client_encoding";
	vals[n++] = "UTF8";
	keys[n] = NULL;
	vals[n] = NULL;

	pg = rk_xcalloc(1, sizeof *pg);
	pg->what = rk_xstrdup(what ? what : "server");
	rk_pg_redact_buf(ci, &red, NULL);
	/* an empty conninfo means libpq's defaults (PGHOST, PGDATABASE...) */
	pg->desc = rk_xstrdup(red.len ? rk_buf_cstr(&red) : "PG* environment defaults");
	rk_buf_free(&red);

	rk_log_debug("connecting %s to '%s'", pg->what, pg->desc);
	pg->conn = PQconnectdbParams(keys, vals, 1);
	if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
		rk_buf text = RK_BUF_INIT;
		PQconninfoOption *opts;
		char *perr = NULL;
		bool malformed;

		/* a conninfo libpq cannot even parse is the user's input error;
		 * without '=' or a URI scheme the string is a bare database name */
		opts = (strchr(ci, '=') || rk_pg_is_uri(ci)) ? PQconninfoParse(ci, &perr) : NULL;
		malformed = opts == NULL && perr != NULL;
		PQconninfoFree(opts);
		rk_pg_tidy(&text, malformed ? perr : pg->conn ? PQerrorMessage(pg->conn)
		                                              : "out of memory");
		if (perr)
			PQfreemem(perr);
		rk_pg_scrub(&text, ci);
		rk_pg_err_start(err);
		if (malformed) {
			rk_error_set(err, RK_EXIT_USAGE, "invalid %s connection string '%s': %s", pg->what, pg->desc,
			             rk_buf_cstr(&text));
			rk_error_hint(err, "write a libpq conninfo (\"host=H port=P dbname=D user=U\") or a URI "
			                   "(\"postgresql://U@H:P/D\"); quote values with blanks in single quotes");
		} else {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot connect to %s '%s': %s", pg->what, pg->desc,
			             rk_buf_cstr(&text));
			rk_pg_set_sqlstate(err, "08001");
			rk_error_hint(err, "check host, port, database, user and password (or ~/.pgpass), and that "
			                   "the server is running and accepts connections from here");
		}
		rk_buf_free(&text);
		rk_pg_close(pg);
		return NULL;
	}
	PQsetNoticeProcessor(pg->conn, rk_pg_on_notice, pg);
	pg->location = rk_pg_make_location(pg->conn);
	if (!*ci) {
		free(pg->desc);
		pg->desc = rk_xstrdup(pg->location);
	}
	if (rk_pg_pin_session(pg, err) < 0) {
		rk_pg_close(pg);
		return NULL;
	}
	pg->cancel = PQgetCancel(pg->conn);
	rk_log_info("%s connected to %s (server %d, backend pid %d)", pg->what, pg->location,
	            PQserverVersion(pg->conn), PQbackendPID(pg->conn));
	return pg;
}

int rk_pg_cancel(rk_pg *pg)
{
	char buf[256];

	/* PQcancel only reads the object made at connect time: safe while
	 * another thread waits on the connection */
	return pg && pg->cancel && PQcancel(pg->cancel, buf, sizeof buf) ? 0 : -1;
}

void rk_pg_close(rk_pg *pg)
{
	if (!pg)
		return;
	if (pg->cancel)
		PQfreeCancel(pg->cancel);
	if (pg->conn)
		PQfinish(pg->conn);
	free(pg->what);
	free(pg->desc);
	free(pg->location);
	free(pg);
}

const char *rk_pg_describe(const rk_pg *pg)
{
	return pg->desc;
}

const char *rk_pg_location(const rk_pg *pg)
{
	return pg->location;
}

int rk_pg_backend_pid(const rk_pg *pg)
{
	return PQbackendPID(pg->conn);
}

bool rk_pg_error_is_usage(const rk_error *err)
{
	const char *s = err->sqlstate;

	return (s[0] == '4' && s[1] == '2') || (s[0] == '2' && s[1] == '2');
}

bool rk_pg_error_is_connection(const rk_error *err)
{
	const char *s = err->sqlstate;

	return (s[0] == '0' && s[1] == '8') || strcmp(s, "57P01") == 0 || strcmp(s, "57P02") == 0 ||
	       strcmp(s, "57P03") == 0;
}

/* ------------------------------------------------------------------------
 * Statements
 * ---------------------------------------------------------------------- */

static void rk_pg_log_statement(const rk_pg *pg, const char *label, const char *sql, int nparams,
                                const char *const *values)
{
	if (rk_log_level < 2)
		return;
	rk_log_debug("%s on %s: %s", label, pg->what, sql);
	for (int i = 0; i < nparams; i++)
		rk_log_debug("  $%d = %s%s%s", i + 1, values[i] ? "'" : "", values[i] ? values[i] : "NULL",
		             values[i] ? "'" : "");
}

/* Pins the settings of sql/session_settings.sql for the transaction just
 * begun (SET LOCAL): through a transaction pooler, the session's own may
 * be gone, or another session's. */
static int rk_pg_pin_transaction(rk_pg *pg, rk_error *err)
{
	PGresult *r;

	rk_pg_log_statement(pg, "transaction settings", rk_sql_session_settings_local, 0, NULL);
	/* several SET LOCAL statements, constant text: the simple protocol */
	r = PQexec(pg->conn, rk_sql_session_settings_local);
	if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
		rk_pg_fail(pg, r, "transaction settings", err);
		PQclear(r);
		return -1;
	}
	PQclear(r);
	return 0;
}

int rk_pg_exec(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
               rk_pg_expect expect, rk_pg_result **res, rk_error *err)
{
	PGresult *r;
	ExecStatusType st;
	char what[64];
	/* a statement that opens a transaction block (BEGIN) is followed by
	 * the transaction's own settings */
	bool was_idle = PQtransactionStatus(pg->conn) == PQTRANS_IDLE;

	if (res)
		*res = NULL;
	rk_pg_log_statement(pg, label, sql, nparams, values);
	r = PQexecParams(pg->conn, sql, nparams, NULL, values, NULL, NULL, 0);
	st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	switch (st) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		break;
	case PGRES_COPY_OUT:
	case PGRES_COPY_IN:
	case PGRES_COPY_BOTH:
		PQclear(r);
		if (st == PGRES_COPY_IN)
			PQputCopyEnd(pg->conn, "unexpected COPY");
		rk_pg_drain(pg);
		return rk_pg_shape_error(pg, label, "a COPY (use the COPY functions)", err);
	default:
		rk_pg_fail(pg, r, label, err);
		PQclear(r);
		return -1;
	}
	switch (expect) {
	case RK_PG_COMMAND:
		if (st == PGRES_TUPLES_OK && PQntuples(r) != 0) {
			snprintf(what, sizeof what, "%d row%s where none were expected", PQntuples(r),
			         PQntuples(r) == 1 ? "" : "s");
			PQclear(r);
			return rk_pg_shape_error(pg, label, what, err);
		}
		break;
	case RK_PG_ONE_ROW:
		if (st != PGRES_TUPLES_OK || PQntuples(r) != 1) {
			if (st != PGRES_TUPLES_OK)
				snprintf(what, sizeof what, "no result set where one row was expected");
			else
				snprintf(what, sizeof what, "%d row%s where exactly one was expected", PQntuples(r),
				         PQntuples(r) == 1 ? "" : "s");
			PQclear(r);
			return rk_pg_shape_error(pg, label, what, err);
		}
		break;
	case RK_PG_ANY_ROWS:
		if (st != PGRES_TUPLES_OK) {
			PQclear(r);
			return rk_pg_shape_error(pg, label, "no result set where rows were expected", err);
		}
		break;
	}
	if (was_idle && PQtransactionStatus(pg->conn) == PQTRANS_INTRANS && rk_pg_pin_transaction(pg, err) < 0) {
		PQclear(r);
		return -1;
	}
	if (res) {
		*res = rk_xmalloc(sizeof **res);
		(*res)->res = r;
	} else {
		PQclear(r);
	}
	return 0;
}

int rk_pg_rows_binary(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
                      rk_pg_value_fn fn, void *ctx, rk_error *err)
{
	PGresult *r;
	int rc = 0;

	rk_pg_log_statement(pg, label, sql, nparams, values);
	if (!PQsendQueryParams(pg->conn, sql, nparams, NULL, values, NULL, NULL, 1))
		return rk_pg_fail(pg, NULL, label, err);
	if (!PQsetSingleRowMode(pg->conn))
		rk_log_debug("%s on %s: no single-row mode", label, pg->what);
	while ((r = PQgetResult(pg->conn)) != NULL) {
		ExecStatusType st = PQresultStatus(r);

		if (rc < 0) {
			/* the callback's error stands; the rest is dropped */
		} else if (st == PGRES_SINGLE_TUPLE || (st == PGRES_TUPLES_OK && PQnfields(r) > 0)) {
			for (int i = 0; i < PQntuples(r) && rc == 0; i++)
				rc = fn(ctx, PQgetisnull(r, i, 0) ? NULL : PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0), err);
		} else if (st != PGRES_TUPLES_OK) {
			rc = rk_pg_fail(pg, r, label, err);
		}
		PQclear(r);
	}
	return rc;
}

bool rk_pg_server_utf8(const rk_pg *pg)
{
	const char *e = PQparameterStatus(pg->conn, "server_encoding");

	return e && strcmp(e, "UTF8") == 0;
}

int rk_pg_command(rk_pg *pg, const char *label, const char *sql, rk_error *err)
{
	return rk_pg_exec(pg, label, sql, 0, NULL, RK_PG_COMMAND, NULL, err);
}

int rk_pg_script(rk_pg *pg, const char *label, const char *sql, rk_error *err)
{
	PGresult *r;

	rk_pg_log_statement(pg, label, sql, 0, NULL);
	r = PQexec(pg->conn, sql);
	if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
		rk_pg_fail(pg, r, label, err);
		PQclear(r);
		return -1;
	}
	PQclear(r);
	return 0;
}

int rk_pg_exec_long(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
                    long *out, rk_error *err)
{
	rk_pg_result *res = NULL;
	const char *v;

	if (rk_pg_exec(pg, label, sql, nparams, values, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	v = rk_pg_result_value(res, 0, 0);
	*out = v ? strtol(v, NULL, 10) : 0;
	rk_pg_result_free(res);
	return 0;
}

int rk_pg_result_rows(const rk_pg_result *r)
{
	return PQntuples(r->res);
}

int rk_pg_result_cols(const rk_pg_result *r)
{
	return PQnfields(r->res);
}

const char *rk_pg_result_value(const rk_pg_result *r, int row, int col)
{
	if (PQgetisnull(r->res, row, col))
		return NULL;
	return PQgetvalue(r->res, row, col);
}

unsigned rk_pg_result_type(const rk_pg_result *r, int col)
{
	return (unsigned)PQftype(r->res, col);
}

int rk_pg_result_typmod(const rk_pg_result *r, int col)
{
	return PQfmod(r->res, col);
}

void rk_pg_result_free(rk_pg_result *r)
{
	if (!r)
		return;
	PQclear(r->res);
	free(r);
}

static char *rk_pg_escaped(rk_pg *pg, char *q, const char *kind, rk_error *err)
{
	char *copy;

	if (!q) {
		rk_buf text = RK_BUF_INIT;

		rk_pg_tidy(&text, PQerrorMessage(pg->conn));
		rk_pg_err_start(err);
		rk_error_set(err, RK_EXIT_USAGE, "cannot quote %s for %s: %s", kind, pg->what, rk_buf_cstr(&text));
		rk_buf_free(&text);
		return NULL;
	}
	copy = rk_xstrdup(q);
	PQfreemem(q);
	return copy;
}

char *rk_pg_quote_ident(rk_pg *pg, const char *ident, rk_error *err)
{
	return rk_pg_escaped(pg, PQescapeIdentifier(pg->conn, ident, strlen(ident)), "an identifier", err);
}

char *rk_pg_quote_literal(rk_pg *pg, const char *value, rk_error *err)
{
	return rk_pg_escaped(pg, PQescapeLiteral(pg->conn, value, strlen(value)), "a literal", err);
}

/* ------------------------------------------------------------------------
 * COPY
 * ---------------------------------------------------------------------- */

/*
 * Stops a COPY TO STDOUT the callback no longer wants: a cancel request
 * makes the server end it early, the rest is read and discarded, and the
 * connection is back in sync for the next statement.  The cancel aborts
 * the transaction (callers that need it again use a savepoint).
 */
static void rk_pg_copy_out_abandon(rk_pg *pg)
{
	PGcancel *cancel = PQgetCancel(pg->conn);
	char errbuf[256];
	char *buf;
	int n;

	if (cancel) {
		if (!PQcancel(cancel, errbuf, sizeof errbuf))
			rk_log_debug("cancel request on %s failed: %s", pg->what, errbuf);
		PQfreeCancel(cancel);
	}
	while ((n = PQgetCopyData(pg->conn, &buf, 0)) > 0)
		PQfreemem(buf);
	rk_pg_drain(pg);
}

static int rk_pg_copy_out_run(rk_pg *pg, const char *label, const char *sql, bool text, rk_pg_copy_fn fn,
                              void *ctx, rk_error *err)
{
	PGresult *res;
	char *buf;
	int n;
	int rc = 0;

	rk_pg_log_statement(pg, label, sql, 0, NULL);
	res = PQexec(pg->conn, sql);
	if (!res || PQresultStatus(res) != PGRES_COPY_OUT) {
		if (res && (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)) {
			PQclear(res);
			return rk_pg_shape_error(pg, label, "no COPY data", err);
		}
		rk_pg_fail(pg, res, label, err);
		PQclear(res);
		rk_pg_drain(pg);
		return -1;
	}
	PQclear(res);

	while ((n = PQgetCopyData(pg->conn, &buf, 0)) > 0) {
		size_t len = (size_t)n;

		if (text && buf[len - 1] == '\n')
			len--;
		rc = fn(ctx, buf, len, err);
		PQfreemem(buf);
		if (rc < 0) {
			/* err holds the callback's error: keep it */
			rk_pg_copy_out_abandon(pg);
			return -1;
		}
	}
	/* n == -1: the COPY is over (well or not, the result says);
	 * n == -2: the connection failed, the result says why */
	res = PQgetResult(pg->conn);
	if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
		if (res)
			rk_pg_fail(pg, res, label, err);
		else
			rk_pg_fail(pg, NULL, label, err);
		rc = -1;
	}
	PQclear(res);
	rk_pg_drain(pg);
	return rc;
}

int rk_pg_copy_out(rk_pg *pg, const char *label, const char *sql, rk_pg_copy_fn fn, void *ctx, rk_error *err)
{
	return rk_pg_copy_out_run(pg, label, sql, true, fn, ctx, err);
}

int rk_pg_copy_out_binary(rk_pg *pg, const char *label, const char *sql, rk_pg_copy_fn fn, void *ctx,
                          rk_error *err)
{
	return rk_pg_copy_out_run(pg, label, sql, false, fn, ctx, err);
}

int rk_pg_copy_in_begin(rk_pg *pg, const char *label, const char *sql, rk_error *err)
{
	PGresult *res;

	snprintf(pg->copy_label, sizeof pg->copy_label, "%s", label);
	rk_pg_log_statement(pg, label, sql, 0, NULL);
	res = PQexec(pg->conn, sql);
	if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
		if (res && (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)) {
			PQclear(res);
			return rk_pg_shape_error(pg, label, "no COPY FROM STDIN", err);
		}
		rk_pg_fail(pg, res, label, err);
		PQclear(res);
		rk_pg_drain(pg);
		return -1;
	}
	PQclear(res);
	pg->in_copy_in = true;
	return 0;
}

/* Ends a COPY FROM STDIN (with an error message: aborted) and fills err
 * from its result when it failed. */
static int rk_pg_copy_in_finish(rk_pg *pg, const char *abort_why, rk_error *err)
{
	PGresult *res;
	int rc = 0;

	pg->in_copy_in = false;
	if (PQputCopyEnd(pg->conn, abort_why) != 1) {
		if (err)
			rk_pg_fail(pg, NULL, pg->copy_label, err);
		rk_pg_drain(pg);
		return -1;
	}
	res = PQgetResult(pg->conn);
	if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
		if (err)
			rk_pg_fail_ctx(pg, res, pg->copy_label, true, err);
		rc = -1;
	}
	PQclear(res);
	rk_pg_drain(pg);
	return rc;
}

int rk_pg_copy_in_put(rk_pg *pg, const char *data, size_t len, rk_error *err)
{
	while (len > 0) {
		int chunk = len > INT_MAX / 2 ? INT_MAX / 2 : (int)len;

		if (PQputCopyData(pg->conn, data, chunk) != 1) {
			rk_pg_fail(pg, NULL, pg->copy_label, err);
			rk_pg_copy_in_finish(pg, "aborted by reckon after a send failure", NULL);
			return -1;
		}
		data += chunk;
		len -= (size_t)chunk;
	}
	return 0;
}

int rk_pg_copy_in_end(rk_pg *pg, rk_error *err)
{
	return rk_pg_copy_in_finish(pg, NULL, err);
}

void rk_pg_copy_in_abort(rk_pg *pg, const char *why)
{
	if (pg && pg->in_copy_in)
		rk_pg_copy_in_finish(pg, why ? why : "aborted by reckon", NULL);
}

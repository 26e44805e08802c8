/*
 * test_afile.c - files and directories written atomically (io/afile.h):
 * temporaries named for their writer, stale ones of dead runs removed and
 * live ones kept, a directory set swapped in whole or not at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "io/afile.h"

#include "../hooks/hooks.h"

static char base[64];

static int setup(void **state)
{
	strcpy(base, "/tmp/rk-afile.XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	unsetenv(RK_FAULT_ENV);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static char *path(const char *name)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", base, name);
	return p[i];
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of base, sorted, space-separated. */
static char *entries(const char *dir)
{
	static char out[1024];
	char cmd[256];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd, "ls -A '%s' | LC_ALL=C sort | tr '\\n' ' '", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

/* A pid that no process has: a child that has exited and been reaped. */
static long dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void test_file_commit_and_names(void **state)
{
	rk_error err;
	rk_afile *af = rk_afile_open(path("list.csv"), "rerun list", &err);
	char want[64];

	assert_non_null(af);
	/* the temporary says whose it is */
	snprintf(want, sizeof want, "list.csv.tmp.reckon-%ld-", (long)getpid());
	assert_non_null(strstr(entries(base), want));
	fputs("a,b\n", rk_afile_stream(af));
	assert_int_equal(rk_afile_commit(af, &err), 0);
	assert_string_equal(entries(base), "list.csv ");
	assert_string_equal(slurp(path("list.csv")), "a,b\n");
}

static void test_stale_temporaries(void **state)
{
	rk_error err;
	char dead[128], live[128], other[128], foreign[128];
	rk_afile *af;

	put(path("list.csv"), "old\n");
	/* a dead run's temporary, a live one's (ours: the parent of the test
	 * is alive), another file's, and a name of another pattern */
	snprintf(dead, sizeof dead, "list.csv.tmp.reckon-%ld-abcdef", dead_pid());
	snprintf(live, sizeof live, "list.csv.tmp.reckon-%ld-abcdef", (long)getppid());
	snprintf(other, sizeof other, "other.csv.tmp.reckon-%ld-abcdef", dead_pid());
	snprintf(foreign, sizeof foreign, "list.csv.tmp.XYZ123");
	put(path(dead), "x");
	put(path(live), "x");
	put(path(other), "x");
	put(path(foreign), "x");
	af = rk_afile_open(path("list.csv"), "rerun list", &err);
	assert_non_null(af);
	rk_afile_abort(af);
	assert_int_equal(access(path(dead), F_OK), -1);
	assert_int_equal(access(path(live), F_OK), 0);
	assert_int_equal(access(path(other), F_OK), 0);
	assert_int_equal(access(path(foreign), F_OK), 0);
	assert_string_equal(slurp(path("list.csv")), "old\n");
}

/* Writes one file "f" with text into a new set for dir and commits it. */
static int set_of(const char *dir, const char *text, rk_error *err)
{
	rk_adir *d = rk_adir_open(dir, "report", err);
	FILE *f;

	if (!d)
		return -1;
	f = rk_adir_fopen(d, "f", err);
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(rk_adir_fclose(d, f, "f", err), 0);
	return rk_adir_commit(d, err);
}

/* Names that only look like a temporary of reckon's are never removed: a
 * pid that does not start with a digit 1-9, digits not followed by '-', a
 * suffix not of mkstemp's six characters, a pid beyond any process's. */
static void test_stale_lookalikes_kept(void **state)
{
	const char *names[] = {
		"list.csv.tmp.reckon-0123-abcdef",
		"list.csv.tmp.reckon-x123-abcdef",
		"list.csv.tmp.reckon-123x-abcdef",
		"list.csv.tmp.reckon-123-abc",
		"list.csv.tmp.reckon-99999999999-abcdef",
	};
	rk_error err;
	rk_afile *af;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		put(path(names[i]), "x");
	af = rk_afile_open(path("list.csv"), "rerun list", &err);
	assert_non_null(af);
	rk_afile_abort(af);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		assert_int_equal(access(path(names[i]), F_OK), 0);
	assert_int_equal(access(path("list.csv"), F_OK), -1);
}

/* A dead run's staging directory is removed whole, however deep (files,
 * subdirectories and their files), when the next run opens the same set. */
static void test_stale_tree_removed(void **state)
{
	char stale[128], sub[192];
	rk_error err;

	snprintf(stale, sizeof stale, "rep.tmp.reckon-%ld-abcdef", dead_pid());
	assert_int_equal(mkdir(path(stale), 0777), 0);
	snprintf(sub, sizeof sub, "%s/f", stale);
	put(path(sub), "x");
	snprintf(sub, sizeof sub, "%s/orders", stale);
	assert_int_equal(mkdir(path(sub), 0777), 0);
	snprintf(sub, sizeof sub, "%s/orders/rerun.csv", stale);
	put(path(sub), "x");
	snprintf(sub, sizeof sub, "%s/orders/deeper", stale);
	assert_int_equal(mkdir(path(sub), 0777), 0);
	assert_int_equal(set_of(path("rep"), "new", &err), 0);
	assert_string_equal(entries(base), "rep ");
	assert_string_equal(slurp(path("rep/f")), "new");
}

/* rk_afile_mkdir: an existing directory is fine, a new one is made; a file
 * in the way and a missing parent are errors that name the path. */
static void test_mkdir(void **state)
{
	rk_error err;

	assert_int_equal(rk_afile_mkdir(path("out"), "lab output directory", &err), 0);
	assert_int_equal(rk_afile_mkdir(path("out"), "lab output directory", &err), 0);
	put(path("file"), "x");
	assert_int_equal(rk_afile_mkdir(path("file"), "lab output directory", &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "exists and is not a directory"));
	assert_int_equal(rk_afile_mkdir(path("none/out"), "lab output directory", &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "cannot create lab output directory"));
	assert_string_equal(entries(base), "file out ");
}

/* What can fail inside a set: a link to nothing, a file under a missing
 * subdirectory, a subdirectory made twice; a kept subdirectory carries its
 * regular files only. Each failure leaves the old set as it was. */
static void test_dir_errors(void **state)
{
	rk_error err;
	rk_adir *d;

	assert_int_equal(symlink("nowhere", path("dangling")), 0);
	assert_null(rk_adir_open(path("dangling"), "report", &err));
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "is a link to nothing usable"));

	assert_int_equal(set_of(path("rep"), "before", &err), 0);
	d = rk_adir_open(path("rep"), "report", &err);
	assert_non_null(d);
	assert_string_equal(rk_adir_path(d), path("rep"));
	assert_null(rk_adir_fopen(d, "missing/f", &err));
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "cannot write report file"));
	assert_int_equal(rk_adir_mkdir(d, "orders", &err), 0);
	assert_int_equal(rk_adir_mkdir(d, "orders", &err), -1);
	assert_non_null(strstr(err.msg, "cannot create report directory"));
	rk_adir_abort(d);
	assert_string_equal(entries(base), "dangling rep ");
	assert_string_equal(slurp(path("rep/f")), "before");

	/* keep: a subdirectory and a link inside the kept one are not carried */
	assert_int_equal(mkdir(path("rep/orders"), 0777), 0);
	put(path("rep/orders/rerun.csv"), "kept\n");
	assert_int_equal(mkdir(path("rep/orders/sub"), 0777), 0);
	assert_int_equal(symlink("rerun.csv", path("rep/orders/link")), 0);
	d = rk_adir_open(path("rep"), "report", &err);
	assert_non_null(d);
	assert_int_equal(rk_adir_keep(d, "orders", &err), 0);
	assert_int_equal(rk_adir_commit(d, &err), 0);
	assert_string_equal(entries(path("rep")), "orders ");
	assert_string_equal(entries(path("rep/orders")), "rerun.csv ");
	assert_string_equal(slurp(path("rep/orders/rerun.csv")), "kept\n");
}

static void test_dir_swap(void **state)
{
	rk_error err;
	char *dir = path("rep");
	char *ent;

	/* a new directory */
	assert_int_equal(set_of(dir, "one", &err), 0);
	assert_string_equal(slurp(path("rep/f")), "one");
	/* an existing one, exchanged; the old set is gone */
	put(path("rep/g"), "old file");
	assert_int_equal(set_of(dir, "two", &err), 0);
	assert_string_equal(slurp(path("rep/f")), "two");
	assert_int_equal(access(path("rep/g"), F_OK), -1);
	ent = entries(base);
	assert_string_equal(ent, "rep ");
	/* a symbolic link: the directory it names is replaced, the link kept */
	assert_int_equal(symlink("rep", path("link")), 0);
	assert_int_equal(set_of(path("link"), "three", &err), 0);
	assert_string_equal(slurp(path("rep/f")), "three");
	assert_string_equal(entries(base), "link rep ");
	/* a file in the way */
	put(path("plain"), "x");
	assert_int_equal(set_of(path("plain"), "x", &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	/* no parent */
	assert_int_equal(set_of(path("none/rep"), "x", &err), -1);
	assert_string_equal(entries(base), "link plain rep ");
}

/* A subdirectory kept from the set being replaced (a job's table that an
 * --only run did not check) is carried over with its files as they were;
 * the rest of the old set is gone. */
static void test_dir_keep(void **state)
{
	rk_error err;
	rk_adir *d;
	FILE *f;

	assert_int_equal(mkdir(path("rep"), 0777), 0);
	assert_int_equal(mkdir(path("rep/orders"), 0777), 0);
	assert_int_equal(mkdir(path("rep/events"), 0777), 0);
	put(path("rep/orders/rerun.csv"), "orders list\n");
	put(path("rep/orders/summary.json"), "{}\n");
	put(path("rep/events/rerun.csv"), "old events\n");
	put(path("rep/summary.json"), "old job\n");
	d = rk_adir_open(path("rep"), "report", &err);
	assert_non_null(d);
	assert_int_equal(rk_adir_keep(d, "orders", &err), 0);
	assert_int_equal(rk_adir_mkdir(d, "events", &err), 0);
	f = rk_adir_fopen(d, "events/rerun.csv", &err);
	assert_non_null(f);
	fputs("new events\n", f);
	assert_int_equal(rk_adir_fclose(d, f, "events/rerun.csv", &err), 0);
	assert_int_equal(rk_adir_commit(d, &err), 0);
	assert_string_equal(slurp(path("rep/orders/rerun.csv")), "orders list\n");
	assert_string_equal(slurp(path("rep/orders/summary.json")), "{}\n");
	assert_string_equal(slurp(path("rep/events/rerun.csv")), "new events\n");
	assert_int_equal(access(path("rep/summary.json"), F_OK), -1);
	assert_string_equal(entries(path("rep")), "events orders ");
	assert_string_equal(entries(base), "rep ");
	/* a subdirectory the old set does not have */
	d = rk_adir_open(path("rep"), "report", &err);
	assert_non_null(d);
	assert_int_equal(rk_adir_keep(d, "nosuch", &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	rk_adir_abort(d);
	assert_string_equal(entries(base), "rep ");
}

/* The same on a file system without renameat2's flags (the old set moved
 * aside, then the new one into its place) and without hard links (a kept
 * file copied): rk_adir's fallbacks, forced by the fault hook. */
static void test_dir_swap_plain_rename(void **state)
{
	setenv(RK_FAULT_ENV, "adir-plain-rename:fail", 1);
	test_dir_swap(state);
}

static void test_dir_keep_plain_rename(void **state)
{
	setenv(RK_FAULT_ENV, "adir-plain-rename:fail", 1);
	test_dir_keep(state);
}

static void test_dir_keep_by_copy(void **state)
{
	setenv(RK_FAULT_ENV, "adir-no-link:fail", 1);
	test_dir_keep(state);
}

static void test_dir_failure_leaves_all_as_was(void **state)
{
	rk_error err;

	assert_int_equal(set_of(path("rep"), "before", &err), 0);
	setenv(RK_FAULT_ENV, "adir-written:fail", 1);
	assert_int_equal(set_of(path("rep"), "after", &err), -1);
	unsetenv(RK_FAULT_ENV);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_string_equal(slurp(path("rep/f")), "before");
	assert_string_equal(entries(base), "rep ");
	assert_string_equal(entries(path("rep")), "f ");
	/* an abandoned set leaves nothing either */
	rk_adir_abort(rk_adir_open(path("rep"), "report", &err));
	assert_string_equal(entries(base), "rep ");
}

/* A child that gets SIGKILLed at step: what it leaves, and the next run. */
static void killed_at(const char *step, const char *want_after_kill)
{
	rk_error err;
	pid_t pid;
	int st;

	assert_int_equal(set_of(path("rep"), "before", &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv(RK_FAULT_ENV, step, 1);
		set_of(path("rep"), "after", &err);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_string_equal(slurp(path("rep/f")), want_after_kill);
	/* the killed run's staging directory is still there ... */
	assert_non_null(strstr(entries(base), "rep.tmp.reckon-"));
	/* ... until the next run for the same directory */
	assert_int_equal(set_of(path("rep"), "next", &err), 0);
	assert_string_equal(entries(base), "rep ");
	assert_string_equal(slurp(path("rep/f")), "next");
}

static void test_dir_killed_before_swap(void **state)
{
	killed_at("adir-written:kill", "before");
}

static void test_dir_killed_after_swap(void **state)
{
	killed_at("adir-swapped:kill", "after");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_commit_and_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_swap_plain_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_keep_plain_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_keep_by_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_failure_leaves_all_as_was, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_killed_before_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_killed_after_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_lookalikes_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tree_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

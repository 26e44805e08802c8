/* renameat2 (RENAME_EXCHANGE) and getdents64 are Linux calls */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/afile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "io/fault.h"

/* The infix of every temporary name: "<path>.tmp.reckon-<pid>-XXXXXX". */
#define RK_AFILE_TMP_INFIX ".tmp.reckon-"

struct rk_afile {
	FILE *f;
	char *path;
	char *tmp;
	const char *what;
	int slot;
};

struct rk_adir {
	char *path;  /* the directory replaced */
	char *stage; /* the staging directory beside it */
	const char *what;
	int slot;
};

/* ------------------------------------------------------------------------
 * removal on signals
 *
 * The handler may run on any thread, at any point: it only reads slots that
 * are marked used, and only calls async-signal-safe functions (unlink,
 * open, getdents64, unlinkat, close).
 * ---------------------------------------------------------------------- */

#define RK_AFILE_SLOTS 16
enum { RK_SLOT_FREE,
       RK_SLOT_FILE,
       RK_SLOT_TREE };
static char rk_afile_pending[RK_AFILE_SLOTS][PATH_MAX];
static volatile sig_atomic_t rk_afile_used[RK_AFILE_SLOTS];
static volatile sig_atomic_t rk_afile_handlers;

/* Removes directory name of dirfd and everything under it, without
 * following symbolic links; async-signal-safe.  Depth is bounded: a
 * staging directory holds files and one level of subdirectories. */
static void rk_rmtree_at(int dirfd, const char *name, int depth)
{
	char buf[4096];
	int fd;
	ssize_t n;

	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || (errno != ENOTEMPTY && errno != EEXIST) || depth > 4)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);

			off += e->d_reclen;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (unlinkat(fd, e->d_name, 0) != 0 && (errno == EISDIR || errno == EPERM))
				rk_rmtree_at(fd, e->d_name, depth + 1);
		}
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void rk_rmtree(const char *path)
{
	rk_rmtree_at(AT_FDCWD, path, 0);
}

static void rk_afile_on_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < RK_AFILE_SLOTS; i++) {
		if (rk_afile_used[i] == RK_SLOT_FILE)
			unlink(rk_afile_pending[i]);
		else if (rk_afile_used[i] == RK_SLOT_TREE)
			rk_rmtree(rk_afile_pending[i]);
	}
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Remembers path for removal if a signal ends the run; the slot, or -1
 * when every slot is taken (the next run removes it then). */
static int rk_afile_register(const char *path, int kind)
{
	if (!rk_afile_handlers) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = rk_afile_on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		rk_afile_handlers = 1;
	}
	for (int i = 0; i < RK_AFILE_SLOTS; i++) {
		if (rk_afile_used[i] == RK_SLOT_FREE && strlen(path) < sizeof rk_afile_pending[i]) {
			strcpy(rk_afile_pending[i], path);
			rk_afile_used[i] = kind;
			return i;
		}
	}
	return -1;
}

static void rk_afile_unregister(int slot)
{
	if (slot >= 0)
		rk_afile_used[slot] = RK_SLOT_FREE;
}

/* ------------------------------------------------------------------------
 * temporary names, and what dead runs left
 * ---------------------------------------------------------------------- */

/* "<path>.tmp.reckon-<pid>-XXXXXX" into b (reset first). */
static void rk_afile_tmp_name(rk_buf *b, const char *path)
{
	rk_buf_reset(b);
	rk_buf_printf(b, "%s" RK_AFILE_TMP_INFIX "%ld-XXXXXX", path, (long)getpid());
	rk_buf_cstr(b);
}

/* The directory part of path (new string) and where its last part starts. */
static char *rk_afile_dirname(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	return slash ? rk_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : rk_xstrdup(".");
}

/* The writer's pid when name is a temporary of base ("<base>.tmp.reckon-
 * <pid>-XXXXXX"), else 0. */
static long rk_afile_tmp_pid(const char *name, const char *base)
{
	size_t bl = strlen(base), il = sizeof RK_AFILE_TMP_INFIX - 1;
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, base, bl) != 0 || strncmp(name + bl, RK_AFILE_TMP_INFIX, il) != 0)
		return 0;
	p = name + bl + il;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || *end != '-' || strlen(end + 1) != 6)
		return 0;
	return pid;
}

/*
 * Removes the temporaries of path that runs no longer alive left beside it
 * (a SIGKILL, a power cut).  Only names of reckon's own pattern, and only
 * when their writer's process does not exist: a live run's files, and
 * anything else in the directory, are left alone.
 */
static void rk_afile_remove_stale(const char *path)
{
	const char *base;
	char *dir = rk_afile_dirname(path, &base);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (*base && d) {
		while ((e = readdir(d)) != NULL) {
			long pid = rk_afile_tmp_pid(e->d_name, base);
			rk_buf p = RK_BUF_INIT;
			struct stat st;

			if (pid <= 0 || pid == (long)getpid() || pid > INT32_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			rk_buf_printf(&p, "%s/%s", dir, e->d_name);
			if (lstat(rk_buf_cstr(&p), &st) == 0) {
				if (S_ISDIR(st.st_mode))
					rk_rmtree(p.data);
				else
					unlink(p.data);
			}
			rk_buf_free(&p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Makes a rename durable: fsync the directory that holds path.  Best
 * effort: some file systems refuse fsync on a directory. */
static void rk_afile_sync_dir(const char *path)
{
	const char *base;
	char *dir = rk_afile_dirname(path, &base);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static mode_t rk_afile_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* ------------------------------------------------------------------------
 * files
 * ---------------------------------------------------------------------- */

rk_afile *rk_afile_open(const char *path, const char *what, rk_error *err)
{
	rk_afile *af;
	rk_buf tmp = RK_BUF_INIT;
	int fd;

	rk_afile_remove_stale(path);
	rk_afile_tmp_name(&tmp, path);
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s '%s': %s", what, path, strerror(errno));
		rk_error_hint(err, "check that the directory exists and is writable");
		rk_buf_free(&tmp);
		return NULL;
	}
	/* mkstemp makes the file 0600; give it what open(2) would under the
	 * user's umask, as any other file the user asks for */
	fchmod(fd, 0666 & ~rk_afile_umask());
	af = rk_xcalloc(1, sizeof *af);
	af->f = fdopen(fd, "w");
	if (!af->f) {
		close(fd);
		unlink(tmp.data);
		rk_buf_free(&tmp);
		free(af);
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s '%s': %s", what, path, strerror(errno));
		return NULL;
	}
	af->path = rk_xstrdup(path);
	af->tmp = tmp.data;
	af->what = what;
	af->slot = rk_afile_register(af->tmp, RK_SLOT_FILE);
	return af;
}

FILE *rk_afile_stream(rk_afile *af)
{
	return af->f;
}

static void rk_afile_release(rk_afile *af)
{
	rk_afile_unregister(af->slot);
	free(af->path);
	free(af->tmp);
	free(af);
}

/* Flushes, fsyncs and closes f: 0, or an errno. */
static int rk_afile_close_synced(FILE *f)
{
	int e = 0;

	if (fflush(f) != 0 || ferror(f))
		e = errno ? errno : EIO;
	else if (fsync(fileno(f)) != 0)
		e = errno;
	if (fclose(f) != 0 && !e)
		e = errno;
	return e;
}

int rk_afile_commit(rk_afile *af, rk_error *err)
{
	int e = rk_afile_close_synced(af->f);

	if (!e && rename(af->tmp, af->path) != 0)
		e = errno;
	if (!e)
		rk_afile_sync_dir(af->path);
	if (e) {
		unlink(af->tmp);
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s '%s': %s", af->what, af->path, strerror(e));
		rk_afile_release(af);
		return -1;
	}
	rk_afile_release(af);
	return 0;
}

void rk_afile_abort(rk_afile *af)
{
	if (!af)
		return;
	fclose(af->f);
	unlink(af->tmp);
	rk_afile_release(af);
}

int rk_afile_mkdir(const char *path, const char *what, rk_error *err)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		rk_error_set(err, RK_EXIT_RUNTIME, "%s directory '%s' exists and is not a directory", what, path);
		return rk_error_hint(err, "choose another path");
	}
	if (mkdir(path, 0755) != 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot create %s directory '%s': %s", what, path, strerror(errno));
		return rk_error_hint(err, "create its parent directory or choose a writable path");
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * directories
 * ---------------------------------------------------------------------- */

rk_adir *rk_adir_open(const char *path, const char *what, rk_error *err)
{
	rk_adir *d;
	rk_buf stage = RK_BUF_INIT;
	struct stat st;
	char *real = NULL;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* replace the directory the link names, keep the link */
		real = realpath(path, NULL);
		if (!real) {
			rk_error_set(err, RK_EXIT_RUNTIME, "%s directory '%s' is a link to nothing usable: %s", what, path,
			             strerror(errno));
			rk_error_hint(err, "point the link at a directory, or remove it");
			return NULL;
		}
		path = real;
	}
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s directory '%s' exists and is not a directory", what, path);
		rk_error_hint(err, "choose another path");
		free(real);
		return NULL;
	}
	rk_afile_remove_stale(path);
	rk_afile_tmp_name(&stage, path);
	if (!mkdtemp(stage.data)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot create %s directory '%s': %s", what, path, strerror(errno));
		rk_error_hint(err, "create its parent directory or choose a writable path");
		rk_buf_free(&stage);
		free(real);
		return NULL;
	}
	chmod(stage.data, 0777 & ~rk_afile_umask());
	d = rk_xcalloc(1, sizeof *d);
	d->path = rk_xstrdup(path);
	d->stage = stage.data;
	d->what = what;
	d->slot = rk_afile_register(d->stage, RK_SLOT_TREE);
	free(real);
	return d;
}

const char *rk_adir_stage(const rk_adir *d)
{
	return d->stage;
}

const char *rk_adir_path(const rk_adir *d)
{
	return d->path;
}

FILE *rk_adir_fopen(rk_adir *d, const char *name, rk_error *err)
{
	rk_buf p = RK_BUF_INIT;
	FILE *f;

	rk_buf_printf(&p, "%s/%s", d->stage, name);
	f = fopen(rk_buf_cstr(&p), "w");
	rk_buf_free(&p);
	if (!f) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s file '%s/%s': %s", d->what, d->path, name,
		             strerror(errno));
		rk_error_hint(err, "check the free space and permissions of the directory's file system");
	}
	return f;
}

int rk_adir_fclose(rk_adir *d, FILE *f, const char *name, rk_error *err)
{
	int e = rk_afile_close_synced(f);

	if (!e)
		return 0;
	rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s file '%s/%s': %s", d->what, d->path, name, strerror(e));
	return rk_error_hint(err, "check the free space and permissions of the directory's file system");
}

int rk_adir_mkdir(rk_adir *d, const char *name, rk_error *err)
{
	rk_buf p = RK_BUF_INIT;
	int rc = 0;

	rk_buf_printf(&p, "%s/%s", d->stage, name);
	if (mkdir(rk_buf_cstr(&p), 0777) != 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot create %s directory '%s/%s': %s", d->what, d->path, name,
		             strerror(errno));
		rc = -1;
	}
	rk_buf_free(&p);
	return rc;
}

/* Copies file from to a new file to (a hard link was not possible): 0 or
 * an errno. */
static int rk_afile_copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out, e = 0;
	ssize_t n;

	if (in < 0)
		return errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (out < 0) {
		e = errno;
		close(in);
		return e;
	}
	while ((n = read(in, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n && !e;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0)
				e = errno;
			else
				off += w;
		}
		if (e)
			break;
	}
	if (n < 0 && !e)
		e = errno;
	if (!e && fsync(out) != 0)
		e = errno;
	if (close(out) != 0 && !e)
		e = errno;
	close(in);
	return e;
}

int rk_adir_keep(rk_adir *d, const char *name, rk_error *err)
{
	rk_buf from = RK_BUF_INIT, a = RK_BUF_INIT, b = RK_BUF_INIT;
	DIR *dir;
	struct dirent *de;
	int e = 0;

	if (rk_adir_mkdir(d, name, err) < 0)
		return -1;
	rk_buf_printf(&from, "%s/%s", d->path, name);
	if (!(dir = opendir(rk_buf_cstr(&from))))
		e = errno;
	while (!e && (de = readdir(dir)) != NULL) {
		struct stat st;

		rk_buf_reset(&a);
		rk_buf_printf(&a, "%s/%s", from.data, de->d_name);
		if (lstat(rk_buf_cstr(&a), &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		rk_buf_reset(&b);
		rk_buf_printf(&b, "%s/%s/%s", d->stage, name, de->d_name);
		/* the old set's files are never written in place (every file is
		 * renamed into place): a link to one stays as it is */
		/* (a test's step: a file system without hard links) */
		if (rk_fault("adir-no-link") == RK_FAULT_FAIL || link(a.data, rk_buf_cstr(&b)) != 0)
			e = rk_afile_copy(a.data, b.data);
	}
	if (dir)
		closedir(dir);
	if (e) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot keep %s directory '%s': %s", d->what, from.data, strerror(e));
		rk_error_hint(err, "check the free space and permissions of the directory's file system");
	}
	rk_buf_free(&from);
	rk_buf_free(&a);
	rk_buf_free(&b);
	return e ? -1 : 0;
}

static void rk_adir_release(rk_adir *d)
{
	rk_afile_unregister(d->slot);
	free(d->path);
	free(d->stage);
	free(d);
}

/* Puts the staging directory in path's place: 0 or an errno.  Afterwards
 * d->stage names the old set (or nothing, when path did not exist). */
static int rk_adir_swap(rk_adir *d)
{
	rk_buf old = RK_BUF_INIT;
	int e = 0;

	/* (a test's step: a file system without renameat2's flags) */
	if (rk_fault("adir-plain-rename") != RK_FAULT_FAIL) {
		if (renameat2(AT_FDCWD, d->stage, AT_FDCWD, d->path, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST || errno == ENOTEMPTY) {
			if (renameat2(AT_FDCWD, d->stage, AT_FDCWD, d->path, RENAME_EXCHANGE) == 0)
				return 0;
		}
		if (errno != EINVAL && errno != ENOSYS)
			return errno;
	}
	/* a file system without renameat2's flags: move the old set aside
	 * first; path is missing for the moment between the two renames */
	rk_afile_tmp_name(&old, d->path);
	if (!mkdtemp(old.data)) {
		e = errno;
	} else if (rename(d->path, old.data) != 0 && errno != ENOENT) {
		e = errno;
		rmdir(old.data);
	} else if (rename(d->stage, d->path) != 0) {
		e = errno;
		rename(old.data, d->path);
	} else {
		/* the old set now lives under a name of this run's pattern */
		strcpy(d->stage, old.data);
	}
	rk_buf_free(&old);
	return e;
}

int rk_adir_commit(rk_adir *d, rk_error *err)
{
	int fd = open(d->stage, O_RDONLY | O_DIRECTORY), e;

	/* the files are durable (rk_adir_fclose); now their names */
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	e = rk_fault("adir-written") == RK_FAULT_FAIL ? EIO : rk_adir_swap(d);
	if (e) {
		rk_rmtree(d->stage);
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot put %s directory '%s' in place: %s", d->what, d->path,
		             strerror(e));
		rk_error_hint(err, "check the permissions of its parent directory");
		rk_adir_release(d);
		return -1;
	}
	rk_afile_sync_dir(d->path);
	rk_fault("adir-swapped");
	/* the old set, if any, is under the staging name now */
	rk_rmtree(d->stage);
	rk_adir_release(d);
	return 0;
}

void rk_adir_abort(rk_adir *d)
{
	if (!d)
		return;
	rk_rmtree(d->stage);
	rk_adir_release(d);
}

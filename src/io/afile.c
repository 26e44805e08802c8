#include "io/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"

struct rk_afile {
	FILE *f;
	char *path;
	char *tmp;
	const char *what;
	int slot;
};

/* Temporary names to remove if a signal ends the run. */
#define RK_AFILE_SLOTS 16
static char rk_afile_pending[RK_AFILE_SLOTS][4096];
static volatile sig_atomic_t rk_afile_used[RK_AFILE_SLOTS];
static int rk_afile_handlers;

static void rk_afile_on_signal(int sig)
{
	for (int i = 0; i < RK_AFILE_SLOTS; i++)
		if (rk_afile_used[i])
			unlink(rk_afile_pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int rk_afile_register(const char *tmp)
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
		if (!rk_afile_used[i] && strlen(tmp) < sizeof rk_afile_pending[i]) {
			strcpy(rk_afile_pending[i], tmp);
			rk_afile_used[i] = 1;
			return i;
		}
	}
	return -1;
}

static void rk_afile_unregister(int slot)
{
	if (slot >= 0)
		rk_afile_used[slot] = 0;
}

rk_afile *rk_afile_open(const char *path, const char *what, rk_error *err)
{
	rk_afile *af;
	rk_buf tmp = RK_BUF_INIT;
	int fd;

	rk_buf_printf(&tmp, "%s.tmp.XXXXXX", path);
	rk_buf_cstr(&tmp);
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s '%s': %s", what, path, strerror(errno));
		rk_error_hint(err, "check that the directory exists and is writable");
		rk_buf_free(&tmp);
		return NULL;
	}
	/* mkstemp makes the file 0600; give it what open(2) would under the
	 * user's umask, as any other file the user asks for */
	{
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
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
	af->slot = rk_afile_register(af->tmp);
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

/* Makes the rename itself durable: fsync the directory that holds path.
 * Best effort: some file systems refuse fsync on a directory. */
static void rk_afile_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? rk_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : rk_xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int rk_afile_commit(rk_afile *af, rk_error *err)
{
	int e = 0;

	if (fflush(af->f) != 0 || ferror(af->f))
		e = errno ? errno : EIO;
	else if (fsync(fileno(af->f)) != 0)
		e = errno;
	if (fclose(af->f) != 0 && !e)
		e = errno;
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

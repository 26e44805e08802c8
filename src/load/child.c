#include "load/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/timeutil.h"

extern char **environ;

/* The environment of the child: ours, with the report channel announced. */
static char **rk_lab_child_env(char *report_var)
{
	size_t n = 0, k = 0;
	char **env;
	size_t len = strlen(RK_CHILD_REPORT_ENV);

	while (environ[n])
		n++;
	env = rk_xcalloc(n + 2, sizeof *env);
	for (size_t i = 0; i < n; i++)
		if (!(strncmp(environ[i], RK_CHILD_REPORT_ENV, len) == 0 && environ[i][len] == '='))
			env[k++] = environ[i];
	env[k++] = report_var;
	env[k] = NULL;
	return env;
}

static void rk_lab_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Makes the three pipes (stdout, stderr, report), close-on-exec: only the
 * descriptors the child dup2's reach it. */
static int rk_lab_child_pipes(int pipes[3][2], char *const *argv, rk_error *err)
{
	for (int i = 0; i < 3; i++) {
		if (pipe(pipes[i]) < 0) {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot create a pipe for %s: %s", argv[0], strerror(errno));
			return -1;
		}
		/* only the descriptors dup2'ed below reach the child */
		fcntl(pipes[i][0], F_SETFD, FD_CLOEXEC);
		fcntl(pipes[i][1], F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

/* The child's side of the fork: the pipes' write ends become its stdout,
 * stderr and report descriptor, then it runs path.  Async-signal-safe calls
 * only. */
static void rk_lab_child_exec(const char *path, char *const *argv, char **env, int pipes[3][2])
{
	int hi[3];

	for (int i = 0; i < 3; i++)
		hi[i] = fcntl(pipes[i][1], F_DUPFD_CLOEXEC, 10);
	if (hi[0] < 0 || hi[1] < 0 || hi[2] < 0 || dup2(hi[0], 1) < 0 || dup2(hi[1], 2) < 0 ||
	    dup2(hi[2], RK_CHILD_REPORT_FD) < 0)
		_exit(127);
	execve(path, argv, env);
	_exit(127);
}

/* Drains all three channels into sinks until the child closes them (it
 * exits).  On a timeout or a failed poll the child is killed and reaped, and
 * -1 is returned. */
static int rk_lab_child_drain(pid_t pid, int pipes[3][2], rk_buf *sinks[3], char *const *argv, rk_error *err)
{
	int status = 0;
	rk_usec deadline, left;

	deadline = rk_time_now() + (rk_usec)RK_CHILD_TIMEOUT_SEC * RK_USEC_PER_SEC;
	for (;;) {
		struct pollfd pfd[3];
		nfds_t n = 0;
		int map[3];

		for (int i = 0; i < 3; i++) {
			if (pipes[i][0] >= 0) {
				pfd[n].fd = pipes[i][0];
				pfd[n].events = POLLIN;
				pfd[n].revents = 0;
				map[n++] = i;
			}
		}
		if (n == 0)
			return 0;
		left = deadline - rk_time_now();
		if (left <= 0) {
			/* a step that hangs (a lock never released) must not hang the lab */
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			rk_error_set(err, RK_EXIT_RUNTIME, "%s %s did not finish within %d seconds and was killed", argv[0],
			             argv[1] ? argv[1] : "", RK_CHILD_TIMEOUT_SEC);
			return -1;
		}
		if (poll(pfd, n, (int)(left / 1000 + 1)) < 0) {
			if (errno == EINTR)
				continue;
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot wait for output of %s: %s", argv[0], strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		for (nfds_t j = 0; j < n; j++) {
			char buf[4096];
			ssize_t r;

			if (!pfd[j].revents)
				continue;
			r = read(pfd[j].fd, buf, sizeof buf);
			if (r > 0)
				rk_buf_append(sinks[map[j]], buf, (size_t)r);
			else if (r == 0 || errno != EINTR)
				rk_lab_close(&pipes[map[j]][0]);
		}
	}
}

/* Reaps the child and records how it ended in c; an exit status of 127 with
 * nothing on stderr is the exec having failed. */
static int rk_lab_child_reap(pid_t pid, const char *path, char *const *argv, rk_lab_child *c, rk_error *err)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot wait for %s: %s", argv[0], strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status)) {
		c->exited = true;
		c->code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		c->signaled = true;
		c->signo = WTERMSIG(status);
	}
	if (c->exited && c->code == 127 && c->err.len == 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot run %s", path);
		return -1;
	}
	return 0;
}

int rk_lab_child_run(const char *path, char *const *argv, rk_lab_child *c, rk_error *err)
{
	int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	rk_buf *sinks[3] = { &c->out, &c->err, &c->report };
	char report_var[64];
	char **env;
	pid_t pid;
	int rc = -1;

	c->exited = c->signaled = false;
	c->code = c->signo = 0;
	for (int i = 0; i < 3; i++)
		rk_buf_reset(sinks[i]);
	snprintf(report_var, sizeof report_var, "%s=%d", RK_CHILD_REPORT_ENV, RK_CHILD_REPORT_FD);
	env = rk_lab_child_env(report_var);

	if (rk_lab_child_pipes(pipes, argv, err) < 0)
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot start %s: %s", path, strerror(errno));
		goto out;
	}
	if (pid == 0)
		rk_lab_child_exec(path, argv, env, pipes);
	for (int i = 0; i < 3; i++)
		rk_lab_close(&pipes[i][1]);

	if (rk_lab_child_drain(pid, pipes, sinks, argv, err) < 0 || rk_lab_child_reap(pid, path, argv, c, err) < 0)
		goto out;
	rc = 0;
out:
	for (int i = 0; i < 3; i++) {
		rk_lab_close(&pipes[i][0]);
		rk_lab_close(&pipes[i][1]);
		rk_buf_cstr(sinks[i]);
	}
	free(env);
	return rc;
}

char *rk_lab_child_report_value(const rk_lab_child *c, const char *name)
{
	size_t len = strlen(name);
	const char *p = c->report.data;

	if (!p)
		return NULL;
	/* the last occurrence wins */
	char *found = NULL;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t l = eol ? (size_t)(eol - p) : strlen(p);

		if (l > len && strncmp(p, name, len) == 0 && p[len] == '=') {
			free(found);
			found = rk_xstrndup(p + len + 1, l - len - 1);
		}
		p = eol ? eol + 1 : NULL;
	}
	return found;
}

void rk_lab_child_describe(const rk_lab_child *c, char *out, size_t outsz)
{
	if (c->signaled)
		snprintf(out, outsz, "killed by signal %d%s", c->signo, c->signo == SIGKILL ? " (SIGKILL)" : "");
	else
		snprintf(out, outsz, "exit status %d", c->code);
}

void rk_lab_child_free(rk_lab_child *c)
{
	if (!c)
		return;
	rk_buf_free(&c->out);
	rk_buf_free(&c->err);
	rk_buf_free(&c->report);
}

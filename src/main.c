/*
 * reckon - reconciliation and audit checker for incremental data loads.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/commands.h"
#include "cli/options.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/log.h"

/* A command's name and summary are the option table's (rk_opts_cmd_name,
 * rk_opts_summary): the manual pages say the same. */
typedef struct rk_command {
	unsigned cmd;
	int (*run)(int argc, char **argv);
} rk_command;

static const rk_command rk_commands[] = {
	{ RK_CMD_CHECK, rk_cmd_check },
	{ RK_CMD_REPAIR, rk_cmd_repair },
	{ RK_CMD_LOAD, rk_cmd_load },
	{ RK_CMD_LAB, rk_cmd_lab },
	{ RK_CMD_RERUN, rk_cmd_rerun_list },
	{ RK_CMD_INIT, rk_cmd_init },
	{ RK_CMD_LATENESS, rk_cmd_lateness },
};

static void rk_usage(FILE *out)
{
	fprintf(out, "usage: reckon COMMAND [options]\n\n"
	             "Finds rows that incremental loads lost, doubled or changed, window by window,\n"
	             "and repairs exactly the rows that differ.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof rk_commands / sizeof rk_commands[0]; i++)
		fprintf(out, "  %-12s %s\n", rk_opts_cmd_name(rk_commands[i].cmd), rk_opts_summary(rk_commands[i].cmd));
	fprintf(out, "\n'reckon help COMMAND' (or 'reckon COMMAND --help') lists the options of a\n"
	             "command.\n"
	             "exit status: 0 match / success, 1 differences found, 2 usage or input error,\n"
	             "3 runtime error\n");
}

int main(int argc, char **argv)
{
	int lead, cmd;
	char **args;
	rk_error err;

#ifdef __GLIBC__
	/* Blocks of 128 KiB and more in mappings of their own, given back to
	 * the system when freed.  glibc otherwise raises that threshold to the
	 * size of each such block freed, so that a damaged check's later big
	 * arrays (the findings', the diagnosis's) land in the heap, where what
	 * the drilldown freed before them stays resident: 114 -> 98.5 MB of
	 * peak RSS at 500k differing rows (docs/performance.md). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (argc < 2) {
		rk_usage(stderr);
		return RK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("reckon %s\n", RK_VERSION);
		return RK_EXIT_OK;
	}
	/* options may come before the command (reckon -v check ...): they are
	 * handed to the command as if given after it */
	lead = rk_opts_leading(argc, argv, 1);
	cmd = 1 + lead;
	/* reckon help COMMAND: that command's --help */
	if (cmd + 1 < argc && !strcmp(argv[cmd], "help")) {
		for (size_t i = 0; i < sizeof rk_commands / sizeof rk_commands[0]; i++)
			if (!strcmp(argv[cmd + 1], rk_opts_cmd_name(rk_commands[i].cmd))) {
				if (cmd + 2 < argc)
					break;
				rk_opts_usage(rk_commands[i].cmd);
				return RK_EXIT_OK;
			}
		rk_error_clear(&err);
		if (cmd + 2 < argc)
			rk_error_set(&err, RK_EXIT_USAGE, "reckon help takes one command, not '%s'", argv[cmd + 2]);
		else
			rk_error_set(&err, RK_EXIT_USAGE, "unknown command '%s'", argv[cmd + 1]);
		rk_error_hint(&err, "run 'reckon help' for the list of commands");
		rk_log_error(&err);
		return RK_EXIT_USAGE;
	}
	if (cmd >= argc || !strcmp(argv[cmd], "help")) {
		bool help = cmd < argc;

		for (int i = 1; i < cmd; i++)
			help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
		rk_usage(help ? stdout : stderr);
		return help ? RK_EXIT_OK : RK_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof rk_commands / sizeof rk_commands[0]; i++) {
		if (strcmp(argv[cmd], rk_opts_cmd_name(rk_commands[i].cmd)) != 0)
			continue;
		args = rk_xcalloc((size_t)argc, sizeof *args);
		args[0] = argv[cmd];
		for (int k = 1; k < cmd; k++)
			args[k] = argv[k];
		for (int k = cmd + 1; k < argc; k++)
			args[k - 1] = argv[k];
		{
			int rc = rk_commands[i].run(argc - 1, args);

			free(args);
			return rc;
		}
	}
	/* through the log, which escapes what the user typed */
	rk_error_clear(&err);
	rk_error_set(&err, RK_EXIT_USAGE, "unknown command '%s'", argv[cmd]);
	rk_error_hint(&err, "run 'reckon --help' for the list of commands");
	rk_log_error(&err);
	return RK_EXIT_USAGE;
}

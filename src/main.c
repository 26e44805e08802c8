/*
 * reckon - reconciliation and audit checker for incremental data loads.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/error.h"

typedef struct rk_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} rk_command;

static const rk_command rk_commands[] = {
	{"check", rk_cmd_check, "compare source and target per closed window"},
	{"repair", rk_cmd_repair, "replace the intervals of a rerun list in the target, idempotently"},
	{"load", rk_cmd_load, "run one incremental load with a named strategy (loader module)"},
	{"lab", rk_cmd_lab, "reproduce the load failure scenarios on a real PostgreSQL"},
	{"rerun-list", rk_cmd_rerun_list, "merge a rerun list into ranges, or print scheduler commands"},
};

static void rk_usage(FILE *out)
{
	fprintf(out, "usage: reckon COMMAND [options]\n\n"
	             "Finds rows that incremental loads lost, doubled or changed, window by window,\n"
	             "and replaces exactly the damaged intervals.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof rk_commands / sizeof rk_commands[0]; i++)
		fprintf(out, "  %-12s %s\n", rk_commands[i].name, rk_commands[i].summary);
	fprintf(out, "\n'reckon COMMAND --help' lists the options of a command.\n"
	             "exit status: 0 match / success, 1 differences found, 2 usage or input error,\n"
	             "3 runtime error\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		rk_usage(stderr);
		return RK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		rk_usage(stdout);
		return RK_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("reckon %s\n", RK_VERSION);
		return RK_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof rk_commands / sizeof rk_commands[0]; i++)
		if (!strcmp(argv[1], rk_commands[i].name))
			return rk_commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "reckon: error: unknown command '%s'\nhint: run 'reckon --help' for the list of commands\n",
	        argv[1]);
	return RK_EXIT_USAGE;
}

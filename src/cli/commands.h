/*
 * commands.h - the subcommands.  Each takes argv with argv[0] = the command
 * name, prints its own errors once, and returns the documented exit status
 * (0 match/success, 1 differences, 2 usage/input error, 3 runtime error).
 */
#ifndef RK_COMMANDS_H
#define RK_COMMANDS_H

int rk_cmd_check(int argc, char **argv);
int rk_cmd_repair(int argc, char **argv);
int rk_cmd_load(int argc, char **argv);
int rk_cmd_lab(int argc, char **argv);
int rk_cmd_rerun_list(int argc, char **argv);
int rk_cmd_init(int argc, char **argv);
int rk_cmd_lateness(int argc, char **argv);

#endif

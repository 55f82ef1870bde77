/*
 * Commands written in Lua (`bmk kit`, `bmk series`, `bmk capacity`): their
 * modules are embedded in the binary (commands/<name>/bmk.<name>*.lua,
 * compiled in by build-aux/lua2c.sh) and run here in a plain Lua state of
 * their own, without the sysbench.* environment of workloads.
 */
#ifndef SB_LUA_COMMAND_H
#define SB_LUA_COMMAND_H

/*
 * Runs main(args, info) of the embedded Lua module `module` in a fresh
 * state: `args` is argv[2..] (argv[1] is the command's name, `name`),
 * `info` holds `exe` (this binary's path) and `datadir` (where the
 * installed workloads and kit live). Returns main's exit status, or 1
 * after an "internal error" line on stderr (the module failed to load or
 * raised an error, or returned no status). Main thread; the state is
 * closed before returning.
 */
int sb_lua_command_run(const char *module, const char *name, int argc, char **argv);

#endif

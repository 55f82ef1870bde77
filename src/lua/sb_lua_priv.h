/* Internal helpers shared by the sb_lua*.c files (not part of
   the Lua layer's API in sb_lua.h). */
#ifndef SB_LUA_PRIV_H
#define SB_LUA_PRIV_H

#include <lua.h>

/* Appends the NUL-terminated string `s` to the malloc'd string *dst (NULL
   = empty), reallocating it. A failed realloc is not checked (the callers
   build short strings at startup). Thread-safe for distinct *dst. */
void sb_lua_str_append(char **dst, const char *s);

/* Pushes onto L's stack a new table with the C functions behind
   sysbench.cmdline (read_cmdline_options, print_test_options), which
   sb_lua_base_state stores as sysbench.__c. The functions register the
   script's options with the core registry and print them: main thread
   only (the registry is not locked). */
void sb_lua_push_option_api(lua_State *L);

/* lua_pcall message handler that keeps the error message as sysbench
   prints it (it already names file:line; no traceback added). Its slot
   below the function keeps the callers' stack layout fixed. Lua C
   function, thread-safe. */
int sb_lua_keep_message(lua_State *L);

#endif

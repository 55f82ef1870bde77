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

/* sysbench.__c.json_decode(text): the JSON text (any value at its top) as
   Lua values, parsed by jansson: objects as tables keyed by member name,
   arrays as tables indexed from 1, numbers as Lua numbers, strings,
   booleans; null as nil (an object's null member is absent, an array's a
   hole). Returns the value, or nil and "JSON: <jansson's message> (line
   L, column C)" for a text that is not JSON. A Lua memory error while the
   tables are built leaks the parsed document. Lua C function; any state,
   thread-safe. */
int sb_lua_json_decode(lua_State *L);

#endif

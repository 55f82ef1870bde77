/* Commands written in Lua; see sb_lua_command.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "commands/sb_lua_command.h"
#include "lua/sb_lua.h"

#ifndef BMK_DATADIR
#define BMK_DATADIR "/usr/local/share/bmk"
#endif

static int traceback(lua_State *L)
{
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

int sb_lua_command_run(const char *module, const char *tool, int argc, char **argv)
{
  lua_State *L = luaL_newstate();
  if (L == NULL)
  {
    fprintf(stderr, "bmk %s: out of memory\n", tool);
    return 1;
  }
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  for (const sb_lua_module_t *m = sb_lua_embedded; m->name; m++)
  {
    lua_pushcfunction(L, sb_lua_load_embedded);
    lua_setfield(L, -2, m->name);
  }
  lua_pop(L, 2);

  lua_pushcfunction(L, traceback);
  lua_getglobal(L, "require");
  lua_pushstring(L, module);
  if (lua_pcall(L, 1, 1, -3) != 0)
  {
    fprintf(stderr, "bmk %s: internal error: %s\n", tool, lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  lua_getfield(L, -1, "main");
  lua_newtable(L);
  for (int i = 2; i < argc; i++)
  {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_newtable(L);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0)
  {
    exe[n] = '\0';
    lua_pushstring(L, exe);
    lua_setfield(L, -2, "exe");
  }
  lua_pushstring(L, BMK_DATADIR);
  lua_setfield(L, -2, "datadir");
  int rc = 1;
  if (lua_pcall(L, 2, 1, 1) != 0)
    fprintf(stderr, "bmk %s: internal error: %s\n", tool, lua_tostring(L, -1));
  else if (!lua_isnumber(L, -1))
    fprintf(stderr, "bmk %s: internal error: no exit status\n", tool);
  else
    rc = (int) lua_tointeger(L, -1);
  fflush(stdout);
  lua_close(L);
  return rc;
}

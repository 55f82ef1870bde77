/* Embedded bundled workloads; see sb_workloads.h. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/sb_workloads.h"

const sb_lua_module_t *sb_workload_find(const char *name)
{
  if (name == NULL || strchr(name, '/') != NULL)
    return NULL;
  size_t n = strlen(name);
  if (n > 4 && strcmp(name + n - 4, ".lua") == 0)
    n -= 4;
  for (const sb_lua_module_t *m = sb_lua_workloads; m->name; m++)
    if (strlen(m->name) == n && strncmp(m->name, name, n) == 0)
      return m;
  return NULL;
}

/* package.loaders entry: returns the module's loader function, or a
   message for require's "module not found" list. */
static int searcher(lua_State *L)
{
  const char *name = luaL_checkstring(L, 1);
  const sb_lua_module_t *m = sb_workload_find(name);
  if (m == NULL)
  {
    lua_pushfstring(L, "\n\tno bundled workload '%s' in the binary", name);
    return 1;
  }
  char chunk[128];
  snprintf(chunk, sizeof(chunk), "@%s.lua", m->name);
  if (luaL_loadbuffer(L, m->src, m->len, chunk) != 0)
    return lua_error(L);
  return 1;
}

int sb_workload_add_searcher(lua_State *L)
{
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaders");
  size_t n = lua_objlen(L, -1);
  lua_pushcfunction(L, searcher);
  lua_rawseti(L, -2, (int) n + 1);
  lua_pop(L, 2);
  return 0;
}

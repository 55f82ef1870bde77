/*
 * Event mode, Lua side: the worker state, the script compiled
 * once per worker as a closure factory, and the per-VU coroutines and
 * environments built by the internal module bmk.vu
 * (src/lua/internal/bmk.vu.lua). See sb_lua.h and docs/design.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "lua/sb_workloads.h"

#define VU_MODULE "bmk.vu"

/* Compiles `src` (len bytes) as "return function(...) <src>\nend" under
   `chunkname` and pushes the result: calling it returns a new closure of
   the script's main function each time, all sharing one prototype. The
   wrapper keeps line numbers: a "#!" first line becomes a comment on the
   wrapper's line. Pushes nil for precompiled bytecode (which cannot be
   wrapped); on a syntax error pushes nil and the message. Returns the
   number of values pushed. */
static int push_factory(lua_State *L, const char *src, size_t len, const char *chunkname)
{
  static const char head[] = "return function(...) ";
  static const char tail[] = "\nend";
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
  {
    src += 3;
    len -= 3;
  }
  if (len > 0 && src[0] == '\033')
  {
    lua_pushnil(L);
    return 1;
  }
  bool shebang = len > 0 && src[0] == '#';
  size_t total = sizeof(head) - 1 + (shebang ? 2 : 0) + len + sizeof(tail) - 1;
  char *buf = malloc(total);
  if (buf == NULL)
    return luaL_error(L, "out of memory loading %s", chunkname);
  size_t n = 0;
  memcpy(buf, head, sizeof(head) - 1);
  n += sizeof(head) - 1;
  if (shebang)
  {
    memcpy(buf + n, "--", 2);
    n += 2;
  }
  memcpy(buf + n, src, len);
  n += len;
  memcpy(buf + n, tail, sizeof(tail) - 1);
  n += sizeof(tail) - 1;
  int rc = luaL_loadbuffer(L, buf, n, chunkname);
  free(buf);
  if (rc != 0)
  {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  return 1;
}

/* Reads a whole file; NULL on failure. */
static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = sb_lua_read_stream(f, len);
  fclose(f);
  return buf;
}

/* bmk.vu.load_factory(path): the factory of a module file (see
   push_factory); nil, message when it cannot be read or compiled; nil
   alone for bytecode. Lua C function. */
static int c_load_factory(lua_State *L)
{
  const char *path = luaL_checkstring(L, 1);
  size_t len;
  char *src = read_file(path, &len);
  if (src == NULL)
  {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read %s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushfstring(L, "@%s", path);
  int n = push_factory(L, src, len, lua_tostring(L, -1));
  free(src);
  return n;
}

/* bmk.vu.load_embedded_factory(name): the factory of a bundled workload
   embedded in the binary (a static or copied bmk finds its modules there
   when no file is on package.path); nil when there is none. Lua C
   function. */
static int c_load_embedded_factory(lua_State *L)
{
  const sb_lua_module_t *m = sb_workload_find(luaL_checkstring(L, 1));
  if (m == NULL)
  {
    lua_pushnil(L);
    return 1;
  }
  lua_pushfstring(L, "@%s.lua", m->name);
  return push_factory(L, m->src, m->len, lua_tostring(L, -1));
}

/* Pushes the bmk.vu module table of `L`. */
static void push_module(lua_State *L)
{
  lua_getfield(L, LUA_REGISTRYINDEX, VU_MODULE);
}

/* Compiles the main script into M.factory (or M.bytecode for a
   precompiled file). 0, or -1 (printed). */
static int load_script(lua_State *L)
{
  const char *path, *buf, *chunkname;
  size_t len;
  if (!sb_lua_script_source(&path, &buf, &len, &chunkname))
    return -1;
  char *src = NULL;
  if (path)
  {
    src = read_file(path, &len);
    if (src == NULL)
    {
      log_text(LOG_FATAL, "cannot open %s: %s", path, strerror(errno));
      return -1;
    }
    buf = src;
  }
  push_module(L);
  if (path)
    lua_pushfstring(L, "@%s", path);
  else
    lua_pushstring(L, chunkname);
  int n = push_factory(L, buf, len, lua_tostring(L, -1));
  if (n == 2)
  {
    free(src);
    log_text(LOG_FATAL, "%s", lua_tostring(L, -1));
    lua_pop(L, 4);
    return -1;
  }
  if (lua_isnil(L, -1))
  {
    /* bytecode: each VU loads its own copy from the bytes read once */
    lua_pop(L, 1);
    lua_pushlstring(L, buf, len);
    lua_setfield(L, -3, "bytecode");
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "bytecode_name");
    lua_pushnil(L);
  }
  free(src);
  lua_setfield(L, -3, "factory");
  lua_pop(L, 2);
  return 0;
}

lua_State *sb_lua_worker_state(void)
{
  lua_State *L = sb_lua_base_state(-1);
  if (L == NULL)
    return NULL;
  lua_getglobal(L, "require");
  lua_pushstring(L, VU_MODULE);
  if (lua_pcall(L, 1, 1, 0) != 0)
  {
    log_text(LOG_FATAL, "cannot load bmk's event-mode module: %s", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  lua_pushcfunction(L, c_load_factory);
  lua_setfield(L, -2, "load_factory");
  lua_pushcfunction(L, c_load_embedded_factory);
  lua_setfield(L, -2, "load_embedded_factory");
  lua_setfield(L, LUA_REGISTRYINDEX, VU_MODULE);
  if (load_script(L) != 0 || sb_lua_apply_jit_cmd(L) != 0)
  {
    lua_close(L);
    return NULL;
  }
  sb_lua_export_options(L);
  return L;
}

/* Calls M.<fn>(tid[, name]) in L with `nres` results; 0 or -1 (printed). */
static int call_module(lua_State *L, const char *fn, int tid, const char *name, int nres)
{
  push_module(L);
  lua_getfield(L, -1, fn);
  lua_remove(L, -2);
  lua_pushinteger(L, tid);
  int nargs = 1;
  if (name)
  {
    lua_pushstring(L, name);
    nargs++;
  }
  if (lua_pcall(L, nargs, nres, 0) != 0)
  {
    sb_lua_log_error(L, NULL);
    lua_pop(L, 1);
    return -1;
  }
  return 0;
}

lua_State *sb_lua_vu_new(lua_State *L, int tid, int *ref)
{
  if (call_module(L, "new_vu", tid, NULL, 1) != 0)
    return NULL;
  lua_State *co = lua_tothread(L, -1);
  if (co == NULL)
  {
    lua_pop(L, 1);
    return NULL;
  }
  *ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return co;
}

void sb_lua_vu_chunk_done(lua_State *L, int tid)
{
  call_module(L, "chunk_done", tid, NULL, 0);
}

bool sb_lua_vu_push(lua_State *L, lua_State *co, const char *name, int tid)
{
  if (call_module(L, "phase_function", tid, name, 1) != 0)
    return false;
  if (!lua_isfunction(L, -1))
  {
    lua_pop(L, 1);
    return false;
  }
  lua_xmove(L, co, 1);
  lua_pushinteger(co, tid);
  return true;
}

void sb_lua_vu_free(lua_State *L, int ref)
{
  luaL_unref(L, LUA_REGISTRYINDEX, ref);
}

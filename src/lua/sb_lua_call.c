/* Calls into a script: global functions and sysbench.cmdline.commands;
   see sb_lua.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>

#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_priv.h"

/* ---- calls ------------------------------------------------------------------- */

bool sb_lua_has_function(lua_State *L, const char *name)
{
  lua_getglobal(L, name);
  bool r = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return r;
}

int sb_lua_keep_message(lua_State *L)
{
  (void) L;
  return 1;
}

/* The SQL error an error table describes (the table sysbench.sql raises
   for an ignorable error: sql_errno, sql_state, sql_errmsg), written into
   buf; false when the table has no sql_errmsg. Outside an event (in
   thread_init, say) such an error cannot restart anything, and without
   this the user would see only that the error object was a table. */
static bool sql_error_text(lua_State *L, char *buf, size_t size)
{
  lua_getfield(L, -1, "sql_errmsg");
  lua_getfield(L, -2, "sql_state");
  lua_getfield(L, -3, "sql_errno");
  bool ok = lua_type(L, -3) == LUA_TSTRING;
  if (ok)
    snprintf(buf, size, "(error object is a table value: SQL error, errno = %d, "
             "state = '%s': %s; an ignorable error outside an event cannot "
             "restart it)", (int) lua_tointeger(L, -1),
             lua_isstring(L, -2) ? lua_tostring(L, -2) : "", lua_tostring(L, -3));
  lua_pop(L, 3);
  return ok;
}

void sb_lua_log_error(lua_State *L, const char *name)
{
  char buf[1024];
  const char *msg = lua_tostring(L, -1);
  if (msg == NULL && lua_istable(L, -1))
    msg = sql_error_text(L, buf, sizeof buf) ? buf : "(error object is a table value)";
  else if (msg == NULL)
    msg = "(error object is not a string)";
  if (name)
    log_text(LOG_FATAL, "`%s' function failed: %s", name, msg);
  else
    log_text(LOG_FATAL, "%s", msg);
}

static int finish_call(lua_State *L, const char *name, int rc, bool *ret_false)
{
  if (rc != 0)
  {
    sb_lua_log_error(L, name);
    lua_pop(L, 2);
    return -1;
  }
  if (ret_false)
    *ret_false = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
  lua_pop(L, 2);
  return 0;
}

int sb_lua_call(lua_State *L, const char *name, int tid, bool *ret_false)
{
  if (ret_false)
    *ret_false = false;
  lua_pushcfunction(L, sb_lua_keep_message);
  lua_getglobal(L, name);
  if (!lua_isfunction(L, -1))
  {
    lua_pop(L, 2);
    return 0;
  }
  int nargs = 0;
  if (tid >= 0)
  {
    lua_pushinteger(L, tid);
    nargs = 1;
  }
  int rc = lua_pcall(L, nargs, 1, -2 - nargs);
  return finish_call(L, name, rc, ret_false);
}

static bool command_entry(lua_State *L, const char *name)
{
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "cmdline");
  lua_getfield(L, -1, "commands");
  bool ok = false;
  if (lua_istable(L, -1))
  {
    lua_getfield(L, -1, name);
    if (lua_istable(L, -1))
    {
      lua_rawgeti(L, -1, 1);
      ok = lua_isfunction(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 3);
  return ok;
}

bool sb_lua_command_defined(const char *name)
{
  lua_State *L = sb_lua_global();
  return L && command_entry(L, name);
}

bool sb_lua_command_parallel(const char *name)
{
  if (!sb_lua_command_defined(name))
    return false;
  lua_State *L = sb_lua_global();
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "cmdline");
  lua_getfield(L, -1, "commands");
  lua_getfield(L, -1, name);
  lua_rawgeti(L, -1, 2);
  bool par = lua_toboolean(L, -1);
  lua_pop(L, 5);
  return par;
}

int sb_lua_call_command(lua_State *L, const char *name, bool *ret_false)
{
  if (ret_false)
    *ret_false = false;
  lua_pushcfunction(L, sb_lua_keep_message);
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "cmdline");
  lua_getfield(L, -1, "commands");
  lua_getfield(L, -1, name);
  lua_rawgeti(L, -1, 1);
  /* stack: tb sysbench cmdline commands entry func */
  lua_replace(L, -5);
  lua_pop(L, 3);
  int rc = lua_pcall(L, 0, 1, -2);
  return finish_call(L, name, rc, ret_false);
}

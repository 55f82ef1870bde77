/* Lua states for scripts; see sb_lua.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>
#include <luajit.h>

#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "lua/sb_workloads.h"
#include "core/sb_options.h"
#include "core/sb_version.h"

#ifndef BMK_DATADIR
#define BMK_DATADIR "/usr/local/share/bmk"
#endif

/* What every state executes: a file (path) or a buffer read from stdin. */
static char *script_path;      /* resolved file, NULL for stdin */
static char *script_given;     /* the test name as given (script_path) */
static const sb_lua_module_t *script_embedded; /* no file: a bundled copy */
static char *script_buf;       /* stdin contents */
static size_t script_len;
static char test_name[256];    /* sysbench's name: basename as given */
static char workload_name[256];  /* the same without ".lua" */

static int cmd_argc;
static char **cmd_argv;
static const char *cmd_command;

static lua_State *gstate;
static char *lua_path;         /* package.path for every state */

void sb_lua_set_cmdline(int argc, char **argv, const char *command)
{
  cmd_argc = argc;
  cmd_argv = argv;
  cmd_command = command;
}

bool sb_lua_from_stdin(void)
{
  return script_path == NULL && script_embedded == NULL;
}

const char *sb_lua_test_name(void)
{
  return test_name;
}

const char *sb_lua_workload_name(void)
{
  return workload_name;
}

lua_State *sb_lua_global(void)
{
  return gstate;
}

/* ---- module search path (§2.3) ------------------------------------------ */

static void append(char **dst, const char *s)
{
  size_t a = *dst ? strlen(*dst) : 0, b = strlen(s);
  *dst = realloc(*dst, a + b + 1);
  memcpy(*dst + a, s, b + 1);
}

static char *default_path(void)
{
  char *p = NULL;
  char buf[4 * PATH_MAX + 256];
  const char *home = getenv("HOME");

  append(&p, "./?.lua;./?/init.lua;./src/lua/?.lua;");
  if (home)
  {
    snprintf(buf, sizeof(buf),
             "%s/.luarocks/share/lua/5.1/?.lua;%s/.luarocks/share/lua/5.1/?/init.lua;"
             "%s/.luarocks/share/lua/?.lua;%s/.luarocks/share/lua/?/init.lua;",
             home, home, home, home);
    append(&p, buf);
  }
  append(&p, "/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;");
  append(&p, BMK_DATADIR "/?.lua;");

  /* The build tree: the executable sits at the top of the build directory
     and the bundled scripts in src/lua of the source tree. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0)
  {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
    {
      *slash = '\0';
      snprintf(buf, sizeof(buf), "%s/src/lua/?.lua;%s/lua/?.lua;", exe, exe);
      append(&p, buf);
    }
  }
#ifdef BMK_SRCDIR
  append(&p, BMK_SRCDIR "/src/lua/?.lua;");
#endif
  append(&p, "/usr/share/sysbench/?.lua");
  return p;
}

/* LUA_PATH replaces the default list; ";;" in it expands to the default. */
static char *resolve_path(void)
{
  char *def = default_path();
  const char *env = getenv("LUA_PATH");
  if (env == NULL)
    return def;

  char *out = NULL;
  const char *s = env;
  const char *dd;
  while ((dd = strstr(s, ";;")) != NULL)
  {
    char *chunk = strndup(s, (size_t) (dd - s));
    append(&out, chunk);
    free(chunk);
    append(&out, ";");
    append(&out, def);
    append(&out, ";");
    s = dd + 2;
  }
  append(&out, s);
  free(def);
  return out;
}

/* ---- state construction --------------------------------------------------- */

int sb_lua_load_embedded(lua_State *L)
{
  const char *name = luaL_checkstring(L, 1);
  for (const sb_lua_module_t *m = sb_lua_embedded; m->name; m++)
    if (strcmp(m->name, name) == 0)
    {
      char chunk[128];
      /* named as sysbench loads its internal scripts, so error positions
         read [string "sysbench.cmdline.lua"]:N: */
      snprintf(chunk, sizeof(chunk), "%s.lua", m->name);
      if (luaL_loadbuffer(L, m->src, m->len, chunk) != 0)
        return lua_error(L);
      lua_pushstring(L, name);
      lua_call(L, 1, 1);
      return 1;
    }
  return luaL_error(L, "no embedded module %s", name);
}

static int c_read_cmdline_options(lua_State *L);
static int c_print_test_options(lua_State *L);

/* Builds the sysbench.* environment in a fresh state (before the chunk). */
lua_State *sb_lua_base_state(int tid)
{
  lua_State *L = luaL_newstate();
  if (L == NULL)
  {
    log_text(LOG_FATAL, "cannot create a Lua state: out of memory");
    return NULL;
  }
  luaL_openlibs(L);

  lua_getglobal(L, "package");
  lua_pushstring(L, lua_path);
  lua_setfield(L, -2, "path");
  const char *cpath = getenv("LUA_CPATH");
  if (cpath)
  {
    lua_pushstring(L, cpath);
    lua_setfield(L, -2, "cpath");
  }
  lua_getfield(L, -1, "preload");
  for (const sb_lua_module_t *m = sb_lua_embedded; m->name; m++)
  {
    lua_pushcfunction(L, sb_lua_load_embedded);
    lua_setfield(L, -2, m->name);
  }
  lua_pop(L, 2);
  sb_workload_add_searcher(L);

  /* Pre-create the table so the internal modules and C agree on it. */
  lua_newtable(L);
  lua_pushinteger(L, tid);
  lua_setfield(L, -2, "tid");
  lua_pushstring(L, sb_compat_version());
  lua_setfield(L, -2, "version");
  lua_pushstring(L, sb_version_string());
  lua_setfield(L, -2, "version_string");
  lua_newtable(L);
  lua_pushcfunction(L, c_read_cmdline_options);
  lua_setfield(L, -2, "read_cmdline_options");
  lua_pushcfunction(L, c_print_test_options);
  lua_setfield(L, -2, "print_test_options");
  lua_setfield(L, -2, "__c");

  lua_newtable(L);            /* cmdline */
  lua_newtable(L);            /* argv, indexed from 0 */
  for (int i = 0; i < cmd_argc; i++)
  {
    lua_pushstring(L, cmd_argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "argv");
  if (cmd_command)
  {
    lua_pushstring(L, cmd_command);
    lua_setfield(L, -2, "command");
  }
  if (script_given)
  {
    lua_pushstring(L, script_given);
    lua_setfield(L, -2, "script_path");
  }
  lua_setfield(L, -2, "cmdline");
  lua_setglobal(L, "sysbench");

  lua_getglobal(L, "require");
  lua_pushstring(L, "sysbench");
  if (lua_pcall(L, 1, 0, 0) != 0)
  {
    log_text(LOG_FATAL, "cannot load bmk's internal Lua modules: %s",
             lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  /* --luajit-cmd acts before the script's chunk runs, as in sysbench
     (jit.status() in the main chunk sees it). */
  if (sb_lua_apply_jit_cmd(L) != 0)
  {
    lua_close(L);
    return NULL;
  }
  return L;
}

/* Runs the script's top-level chunk in L. 0 or -1 (printed). */
static int run_chunk(lua_State *L)
{
  int rc;
  char chunk[128];
  if (script_path)
    rc = luaL_loadfile(L, script_path);
  else if (script_embedded)
  {
    snprintf(chunk, sizeof(chunk), "@%s.lua", script_embedded->name);
    rc = luaL_loadbuffer(L, script_embedded->src, script_embedded->len, chunk);
  }
  else
    rc = luaL_loadbuffer(L, script_buf, script_len, "=stdin");
  if (rc == 0)
    rc = lua_pcall(L, 0, 0, 0);
  if (rc != 0)
  {
    log_text(LOG_FATAL, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  return 0;
}

static int read_stdin(void)
{
  size_t cap = 65536;
  script_buf = malloc(cap);
  script_len = 0;
  if (isatty(STDIN_FILENO))
    log_text(LOG_NOTICE, "Reading the script from the standard input:");
  for (;;)
  {
    if (script_len == cap)
    {
      cap *= 2;
      script_buf = realloc(script_buf, cap);
    }
    size_t n = fread(script_buf + script_len, 1, cap - script_len, stdin);
    if (n == 0)
      break;
    script_len += n;
  }
  return 0;
}

/* sysbench names a script test by basename(path) as given, ".lua" kept
   (sb_lua.c: sbtest.sname); "<stdin>" for a script read from stdin. */
static void set_test_name(const char *given)
{
  const char *base = strrchr(given, '/');
  base = base ? base + 1 : given;
  snprintf(test_name, sizeof(test_name), "%s", base);
  snprintf(workload_name, sizeof(workload_name), "%s", base);
  size_t n = strlen(workload_name);
  if (n > 4 && strcmp(workload_name + n - 4, ".lua") == 0)
    workload_name[n - 4] = '\0';
}

/* Finds `name` as a module on package.path; returns a malloc'd path or NULL. */
static char *search_module(lua_State *L, const char *name)
{
  char *found = NULL;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchpath");
  if (lua_isfunction(L, -1))
  {
    lua_pushstring(L, name);
    lua_pushstring(L, lua_path);
    if (lua_pcall(L, 2, 1, 0) == 0 && lua_isstring(L, -1))
      found = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  else
    lua_pop(L, 1);
  lua_pop(L, 1);
  return found;
}

int sb_lua_load(const char *testname)
{
  lua_path = resolve_path();

  if (testname == NULL || strcmp(testname, "-") == 0)
  {
    read_stdin();
    snprintf(test_name, sizeof(test_name), "<stdin>");
    snprintf(workload_name, sizeof(workload_name), "stdin");
  }
  else
  {
    script_given = strdup(testname);
    set_test_name(testname);
    if (access(testname, R_OK) == 0)
      script_path = strdup(testname);
  }

  gstate = sb_lua_base_state(0);
  if (gstate == NULL)
    return -1;

  if (testname && strcmp(testname, "-") != 0 && script_path == NULL)
  {
    script_path = search_module(gstate, testname);
    if (script_path == NULL)
      script_embedded = sb_workload_find(testname);
    if (script_path == NULL && script_embedded == NULL)
    {
      lua_close(gstate);
      gstate = NULL;
      return 1;
    }
  }

  if (run_chunk(gstate) != 0)
    return -1;

  /* Register the script's options with the core parser. */
  lua_getglobal(gstate, "sysbench");
  lua_getfield(gstate, -1, "cmdline");
  lua_getfield(gstate, -1, "read_cmdline_options");
  int rc = lua_pcall(gstate, 0, 0, 0);
  if (rc != 0)
  {
    log_text(LOG_FATAL, "`sysbench.cmdline.read_cmdline_options' function failed: %s",
             lua_tostring(gstate, -1));
    lua_pop(gstate, 3);
    return -1;
  }
  lua_pop(gstate, 2);
  return 0;
}

/* ---- options ---------------------------------------------------------------- */

/* Text of a Lua default value for the registry (NULL = none). */
static char *default_text(lua_State *L, int idx, sb_arg_type_t *type)
{
  char buf[64];
  switch (lua_type(L, idx))
  {
  case LUA_TBOOLEAN:
    *type = SB_ARG_TYPE_BOOL;
    return strdup(lua_toboolean(L, idx) ? "on" : "off");
  case LUA_TNUMBER:
  {
    *type = SB_ARG_TYPE_DOUBLE;
    double d = lua_tonumber(L, idx);
    snprintf(buf, sizeof(buf), "%.14g", d);
    return strdup(buf);
  }
  case LUA_TSTRING:
    *type = SB_ARG_TYPE_STRING;
    return strdup(lua_tostring(L, idx));
  case LUA_TTABLE:
  {
    *type = SB_ARG_TYPE_LIST;
    char *out = strdup("");
    size_t n = lua_objlen(L, idx);
    for (size_t i = 1; i <= n; i++)
    {
      lua_rawgeti(L, idx, (int) i);
      const char *s = lua_tostring(L, -1);
      if (i > 1)
        append(&out, ",");
      append(&out, s ? s : "");
      lua_pop(L, 1);
    }
    return out;
  }
  default:
    *type = SB_ARG_TYPE_STRING;
    return NULL;
  }
}

/* Script options whose name a core option already has: the core's
   definition and value win (bmk decision), but the script's help still
   lists the script's declaration, as sysbench lists every option a script
   declares. */
static sb_option_t *shadow;
static unsigned nshadow;

static void add_shadow(const char *name, const char *desc, const char *def,
                       sb_arg_type_t type)
{
  for (unsigned i = 0; i < nshadow; i++)
    if (strcmp(shadow[i].name, name) == 0)
      return;
  sb_option_t *n = realloc(shadow, sizeof(*shadow) * (nshadow + 1));
  if (n == NULL)
    return;
  shadow = n;
  shadow[nshadow++] = (sb_option_t) { strdup(name), strdup(desc), def ? strdup(def) : NULL,
                                      type };
}

/* sysbench.__c.read_cmdline_options(): registers every entry of
   sysbench.cmdline.options = { name = {desc, default, type?, validate?} }.
   bmk: an entry with `bmk = true` is a bmk addition to a script's options
   (e.g. oltp_common's --load-method): accepted under both names, listed in
   the script's help only under the name bmk, so `sysbench <script> help`
   stays sysbench's text.
   The table's structure was checked by the Lua caller
   (sysbench.cmdline.read_cmdline_options), which raises sysbench's errors. */
static int c_read_cmdline_options(lua_State *L)
{
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "cmdline");
  lua_getfield(L, -1, "options");
  if (!lua_istable(L, -1))
  {
    lua_pop(L, 3);
    return 0;
  }

  int tbl = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tbl) != 0)
  {
    const char *name = lua_tostring(L, -2);
    int entry = lua_gettop(L);

    lua_rawgeti(L, entry, 1);
    const char *desc = lua_tostring(L, -1);
    lua_rawgeti(L, entry, 2);
    sb_arg_type_t type;
    char *def = default_text(L, lua_gettop(L), &type);
    lua_rawgeti(L, entry, 3);
    if (lua_isnumber(L, -1))
      type = (sb_arg_type_t) lua_tointeger(L, -1);

    sb_opt_t *o = sb_opt_find(name);
    int rc = 0;
    if (o != NULL && !o->from_script)
      add_shadow(name, desc ? desc : "", def, type);
    else if (o == NULL)
    {
      rc = sb_opt_register(name, desc ? desc : "", def, type, SB_GROUP_TEST, NULL);
      if ((o = sb_opt_find(name)) != NULL)
      {
        o->from_script = true;
        lua_getfield(L, entry, "bmk");
        o->extension = lua_toboolean(L, -1);
        lua_pop(L, 1);
      }
    }
    free(def);
    if (rc != 0)
      exit(1);
    lua_pop(L, 4);
  }
  lua_pop(L, 3);
  return 0;
}

static void print_script_options(void)
{
  sb_opt_print_group_extra(SB_GROUP_TEST, NULL, true, shadow, nshadow);
  /* sysbench's option list ends with a blank line */
  printf("\n");
}

static int c_print_test_options(lua_State *L)
{
  (void) L;
  print_script_options();
  return 0;
}

bool sb_lua_print_test_options(void)
{
  bool any = nshadow > 0;
  for (unsigned i = 0; i < sb_opt_count(); i++)
    if (sb_opt_at(i)->group == SB_GROUP_TEST)
      any = true;
  if (!any)
    return false;
  printf("%s options:\n", test_name);
  print_script_options();
  return true;
}

void sb_lua_export_options(lua_State *L)
{
  lua_getglobal(L, "sysbench");
  lua_newtable(L);
  for (unsigned i = 0; i < sb_opt_count(); i++)
  {
    sb_opt_t *o = sb_opt_at(i);
    bool b;
    double d;
    uint64_t sz;
    switch (o->type)
    {
    case SB_ARG_TYPE_BOOL:
      /* Quirk kept from sysbench: an unset BOOL (nil default) reads true. */
      if (o->value == NULL)
        b = true;
      else
        sb_parse_bool(o->value, &b);
      lua_pushboolean(L, b);
      break;
    /* An unset number reads 0, as sysbench's sb_opt_to_int() & co. */
    case SB_ARG_TYPE_INT:
    case SB_ARG_TYPE_DOUBLE:
      if (o->value && sb_parse_double(o->value, &d) == 0)
        lua_pushnumber(L, d);
      else
        lua_pushnumber(L, 0);
      break;
    case SB_ARG_TYPE_SIZE:
      if (o->value && sb_parse_size(o->value, &sz) == 0)
        lua_pushnumber(L, (double) sz);
      else
        lua_pushnumber(L, 0);
      break;
    case SB_ARG_TYPE_LIST:
    {
      unsigned n;
      char **items = sb_opt_list(o->name, &n);
      lua_newtable(L);
      for (unsigned k = 0; k < n; k++)
      {
        lua_pushstring(L, items[k]);
        lua_rawseti(L, -2, (int) k + 1);
      }
      break;
    }
    case SB_ARG_TYPE_FILE:
      lua_pushnil(L);
      break;
    default:
      lua_pushstring(L, o->value ? o->value : "");
      break;
    }
    lua_setfield(L, -2, o->name);
  }
  lua_setfield(L, -2, "opt");
  lua_pop(L, 1);
}

int sb_lua_apply_jit_cmd(lua_State *L)
{
  const char *cmd = sb_opt_str("luajit_cmd");
  if (cmd == NULL || *cmd == '\0')
    return 0;
  /* Same forms as `luajit -j cmd[=arg]`: jit.<cmd>(args...) */
  char *copy = strdup(cmd);
  char *eq = strchr(copy, '=');
  if (eq)
    *eq++ = '\0';
  int ok = 0;
  lua_getglobal(L, "require");
  lua_pushstring(L, "jit");
  if (lua_pcall(L, 1, 1, 0) == 0)
  {
    lua_getfield(L, -1, copy);
    if (lua_isfunction(L, -1))
    {
      int nargs = 0;
      if (eq)
      {
        char *save = NULL;
        for (char *a = strtok_r(eq, ",", &save); a; a = strtok_r(NULL, ",", &save))
        {
          lua_pushstring(L, a);
          nargs++;
        }
      }
      ok = lua_pcall(L, nargs, 0, 0) == 0;
      if (!ok)
        lua_pop(L, 1);
    }
    else
      lua_pop(L, 1);
    lua_pop(L, 1);
  }
  else
    lua_pop(L, 1);
  free(copy);
  if (!ok)
  {
    log_text(LOG_FATAL, "unknown luaJIT command or jit.* modules not installed");
    return -1;
  }
  return 0;
}

lua_State *sb_lua_new_state(int tid)
{
  lua_State *L = sb_lua_base_state(tid);
  if (L == NULL)
    return NULL;
  if (run_chunk(L) != 0)
  {
    lua_close(L);
    return NULL;
  }
  sb_lua_export_options(L);
  return L;
}

void sb_lua_close_state(lua_State *L)
{
  if (L)
    lua_close(L);
}

void sb_lua_done(void)
{
  if (gstate)
    lua_close(gstate);
  gstate = NULL;
}

/* ---- calls ------------------------------------------------------------------- */

bool sb_lua_has_function(lua_State *L, const char *name)
{
  lua_getglobal(L, name);
  bool r = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return r;
}

static int traceback(lua_State *L)
{
  /* Keep the message as sysbench prints it (no traceback): the message
     already has file:line. */
  return 1;
}

void sb_lua_log_error(lua_State *L, const char *name)
{
  const char *msg = lua_tostring(L, -1);
  if (msg == NULL)
    msg = lua_istable(L, -1) ? "(error object is a table value)" : "(error object is not a string)";
  if (name)
    log_text(LOG_FATAL, "`%s' function failed: %s", name, msg);
  else
    log_text(LOG_FATAL, "%s", msg);
}

bool sb_lua_script_source(const char **path, const char **buf, size_t *len,
                          const char **chunkname)
{
  static char embedded_name[256];
  *path = script_path;
  *buf = script_buf;
  *len = script_len;
  *chunkname = "=stdin";
  if (script_path == NULL && script_embedded != NULL)
  {
    *buf = script_embedded->src;
    *len = script_embedded->len;
    snprintf(embedded_name, sizeof(embedded_name), "@%s.lua", script_embedded->name);
    *chunkname = embedded_name;
  }
  return script_path != NULL || *buf != NULL;
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
  lua_pushcfunction(L, traceback);
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
  return gstate && command_entry(gstate, name);
}

bool sb_lua_command_parallel(const char *name)
{
  if (!sb_lua_command_defined(name))
    return false;
  lua_State *L = gstate;
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
  lua_pushcfunction(L, traceback);
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

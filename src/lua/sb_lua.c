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
#include "lua/sb_lua_priv.h"
#include "lua/sb_workloads.h"
#include "core/sb_options.h"
#include "core/sb_version.h"

#ifndef BMK_DATADIR
#define BMK_DATADIR "/usr/local/share/bmk"
#endif

/* What every state executes: a file (path) or a buffer read from stdin. */
static char *script_path;      /* resolved file, NULL for stdin */
static char script_chunk[4200];  /* "@" + script_path once read */
static char *script_given;     /* the test name as given (script_path) */
static const sb_lua_module_t *script_embedded; /* no file: a bundled copy */
static char *script_buf;       /* stdin contents, or the script file read once */
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

/* ---- module search path (sysbench 1.1's, then bmk's) ------------------- */

void sb_lua_str_append(char **dst, const char *s)
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

  sb_lua_str_append(&p, "./?.lua;./?/init.lua;./src/lua/?.lua;");
  if (home)
  {
    snprintf(buf, sizeof(buf),
             "%s/.luarocks/share/lua/5.1/?.lua;%s/.luarocks/share/lua/5.1/?/init.lua;"
             "%s/.luarocks/share/lua/?.lua;%s/.luarocks/share/lua/?/init.lua;",
             home, home, home, home);
    sb_lua_str_append(&p, buf);
  }
  sb_lua_str_append(&p, "/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;");
  sb_lua_str_append(&p, BMK_DATADIR "/?.lua;");

  /* The build tree: the executable sits at the top of the build directory
     and the bundled scripts in src/workloads of the source tree ("./src/lua"
     above is sysbench's entry, kept for its source tree). */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0)
  {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
    {
      *slash = '\0';
      snprintf(buf, sizeof(buf), "%s/src/workloads/?.lua;%s/lua/?.lua;", exe, exe);
      sb_lua_str_append(&p, buf);
    }
  }
#ifdef BMK_SRCDIR
  sb_lua_str_append(&p, BMK_SRCDIR "/src/workloads/?.lua;");
#endif
  sb_lua_str_append(&p, "/usr/share/sysbench/?.lua");
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
    sb_lua_str_append(&out, chunk);
    free(chunk);
    sb_lua_str_append(&out, ";");
    sb_lua_str_append(&out, def);
    sb_lua_str_append(&out, ";");
    s = dd + 2;
  }
  sb_lua_str_append(&out, s);
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

/* package.path (lua_path), package.cpath (LUA_CPATH when set), the
   embedded modules in package.preload and the bundled workloads' searcher. */
static void setup_package(lua_State *L)
{
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
}

/* Pushes the sysbench.cmdline table: argv (indexed from 0), command and
   script_path. */
static void push_cmdline(lua_State *L)
{
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
}

/* Sets the global `sysbench` table that the internal modules fill in. */
static void set_sysbench_table(lua_State *L, int tid)
{
  /* Pre-create the table so the internal modules and C agree on it. */
  lua_newtable(L);
  lua_pushinteger(L, tid);
  lua_setfield(L, -2, "tid");
  lua_pushstring(L, sb_compat_version());
  lua_setfield(L, -2, "version");
  lua_pushstring(L, sb_version_string());
  lua_setfield(L, -2, "version_string");
  sb_lua_push_option_api(L);
  lua_pushcfunction(L, sb_lua_json_decode);
  lua_setfield(L, -2, "json_decode");
  lua_setfield(L, -2, "__c");

  push_cmdline(L);
  lua_setfield(L, -2, "cmdline");
  lua_setglobal(L, "sysbench");
}

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
  setup_package(L);
  set_sysbench_table(L, tid);

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
  if (script_path && script_buf)
    rc = luaL_loadbuffer(L, script_buf, script_len, script_chunk);
  else if (script_path)
    rc = luaL_loadfile(L, script_path);   /* unreadable: its own message */
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

char *sb_lua_read_stream(FILE *f, size_t *len)
{
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf != NULL)
  {
    if (n == cap)
    {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL)
      {
        free(buf);
        return NULL;
      }
      buf = bigger;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    if (r == 0)
      break;
    n += r;
  }
  if (buf != NULL && ferror(f))
  {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* Reads the script file into script_buf once, so that every state (one
   per worker or VU) compiles the same text even when the path is a pipe
   that can be read only once (`bmk <(generate) run`). On a read error
   script_buf stays NULL and luaL_loadfile reports it. */
static void read_script_file(void)
{
  FILE *f = fopen(script_path, "rb");
  if (f == NULL)
    return;
  size_t len;
  char *buf = sb_lua_read_stream(f, &len);
  fclose(f);
  if (buf == NULL)
    return;
  script_buf = buf;
  script_len = len;
  /* the chunk name luaL_loadfile gives: messages name the file */
  snprintf(script_chunk, sizeof(script_chunk), "@%s", script_path);
}

static int read_stdin(void)
{
  if (isatty(STDIN_FILENO))
    log_text(LOG_NOTICE, "Reading the script from the standard input:");
  script_buf = sb_lua_read_stream(stdin, &script_len);
  if (script_buf == NULL)
  {
    log_text(LOG_FATAL, "cannot read the script from the standard input: %s", strerror(errno));
    return -1;
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
    if (read_stdin() != 0)
      return -1;
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

  if (script_path)
    read_script_file();
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

bool sb_lua_script_source(const char **path, const char **buf, size_t *len,
                          const char **chunkname)
{
  static char embedded_name[256];
  /* a script file is handed out as its text, read once at load */
  *path = script_buf ? NULL : script_path;
  *buf = script_buf;
  *len = script_len;
  *chunkname = script_path ? script_chunk : "=stdin";
  if (script_path == NULL && script_embedded != NULL)
  {
    *buf = script_embedded->src;
    *len = script_embedded->len;
    snprintf(embedded_name, sizeof(embedded_name), "@%s.lua", script_embedded->name);
    *chunkname = embedded_name;
  }
  return script_path != NULL || *buf != NULL;
}

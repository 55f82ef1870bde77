/* Script options (sysbench.cmdline.options, sysbench.opt) and the
   sysbench.__c functions behind them; see sb_lua.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_options.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_priv.h"

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
        sb_lua_str_append(&out, ",");
      sb_lua_str_append(&out, s ? s : "");
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
  printf("%s options:\n", sb_lua_test_name());
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
void sb_lua_push_option_api(lua_State *L)
{
  lua_newtable(L);
  lua_pushcfunction(L, c_read_cmdline_options);
  lua_setfield(L, -2, "read_cmdline_options");
  lua_pushcfunction(L, c_print_test_options);
  lua_setfield(L, -2, "print_test_options");
}

/* sysbench.__c.json_decode: a JSON text as Lua values, parsed by jansson,
   for bmk's own Lua that reads documents bmk wrote (a saved run from
   `bmk runs export`: chbench's --baseline=tag:K=V). */
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>

#include "lua/sb_lua_priv.h"

/* Pushes `v` as a Lua value: an object as a table keyed by its member
   names, an array as a table indexed 1..n, a number as a Lua number (an
   integer beyond 2^53 loses precision), a string (NULs kept), a boolean;
   null as nil, so an object's null member is absent and an array's null
   a hole. Raises a Lua error when the stack cannot grow (nesting is
   bounded by jansson's parser depth, 2048). */
static void push_value(lua_State *L, const json_t *v)
{
  if (!lua_checkstack(L, 4))
    luaL_error(L, "json_decode: the document nests too deep");
  switch (json_typeof(v))
  {
  case JSON_OBJECT:
  {
    lua_createtable(L, 0, (int) json_object_size(v));
    const char *key;
    json_t *m;
    json_object_foreach((json_t *) v, key, m)
    {
      if (json_is_null(m))
        continue;
      push_value(L, m);
      lua_setfield(L, -2, key);
    }
    break;
  }
  case JSON_ARRAY:
  {
    size_t n = json_array_size(v);
    lua_createtable(L, (int) n, 0);
    for (size_t i = 0; i < n; i++)
    {
      const json_t *e = json_array_get(v, i);
      if (json_is_null(e))
        continue;
      push_value(L, e);
      lua_rawseti(L, -2, (int) i + 1);
    }
    break;
  }
  case JSON_STRING:
    lua_pushlstring(L, json_string_value(v), json_string_length(v));
    break;
  case JSON_INTEGER:
    lua_pushnumber(L, (lua_Number) json_integer_value(v));
    break;
  case JSON_REAL:
    lua_pushnumber(L, json_real_value(v));
    break;
  case JSON_TRUE:
  case JSON_FALSE:
    lua_pushboolean(L, json_is_true(v));
    break;
  default:
    lua_pushnil(L);
    break;
  }
}

int sb_lua_json_decode(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  json_error_t e;
  json_t *doc = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
  if (doc == NULL)
  {
    lua_pushnil(L);
    lua_pushfstring(L, "JSON: %s (line %d, column %d)", e.text, e.line, e.column);
    return 2;
  }
  push_value(L, doc);
  json_decref(doc);
  return 1;
}

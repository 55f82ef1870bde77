/* Unit tests: sysbench.__c.json_decode (src/lua/sb_lua_json.c), a JSON
   text as Lua values through jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua/sb_lua_priv.h"

/* Runs `chunk` in a fresh state with json_decode as global `decode`;
   returns the string the chunk returns (a copy in `out`). */
static void run(const char *chunk, char *out, size_t len)
{
  lua_State *L = luaL_newstate();
  assert_non_null(L);
  luaL_openlibs(L);
  lua_pushcfunction(L, sb_lua_json_decode);
  lua_setglobal(L, "decode");
  int rc = luaL_loadstring(L, chunk);
  if (rc == 0)
    rc = lua_pcall(L, 0, 1, 0);
  const char *s = lua_tostring(L, -1);
  snprintf(out, len, "%s", s ? s : "(not a string)");
  lua_close(L);
  if (rc != 0)
    fail_msg("chunk failed: %s", out);
}

static void test_values(void **state)
{
  (void) state;
  char out[256];
  run("local v = decode('{\"a\": [1, null, 2.5, \"x\\\\u00e9\\\\u0000y\"], \"b\": null,"
      " \"c\": {\"d\": true, \"e\": false}, \"n\": -12345678901}')\n"
      "return string.format('%s %s %s %d %s %s %s %.0f', v.a[1], tostring(v.a[2]), v.a[3],"
      " #v.a[4], tostring(v.b), tostring(v.c.d), tostring(v.c.e), v.n)",
      out, sizeof(out));
  /* null: an array's hole, an object's absent member; the string's NUL kept */
  assert_string_equal(out, "1 nil 2.5 5 nil true false -12345678901");
  run("return tostring(decode('3')) .. ' ' .. decode('\"s\"') .. ' ' .. tostring(decode('null'))",
      out, sizeof(out));
  assert_string_equal(out, "3 s nil");
  run("local v = decode('[[],{}]') return type(v[1]) .. ' ' .. type(v[2]) .. ' ' .. #v",
      out, sizeof(out));
  assert_string_equal(out, "table table 2");
}

static void test_errors(void **state)
{
  (void) state;
  char out[256];
  run("local v, e = decode('[1, 2') return tostring(v) .. ' ' .. e", out, sizeof(out));
  assert_string_equal(out, "nil JSON: ']' expected near end of file (line 1, column 5)");
  run("local v, e = decode('{\"a\": 1} x') return tostring(v) .. ' ' .. e", out, sizeof(out));
  assert_non_null(strstr(out, "nil JSON: "));
  run("local ok, e = pcall(decode, nil) return tostring(ok)", out, sizeof(out));
  assert_string_equal(out, "false");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

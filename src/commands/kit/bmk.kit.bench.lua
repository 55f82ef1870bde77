-- bmk kit: BMK_HOME resolution and the `.bench` configuration
-- (docs/kit.md).

local sys = require("bmk.kit.sys")

local M = {}

-- Every field the kit reads from .bench, in the documented order.
M.FIELDS = {
  "BMK_HOME", "EXT", "user", "pass", "host", "port", "socket", "mysql", "db",
  "TMP_DIR", "sb11_MAX", "sb11", "driver", "pg_host", "pg_port", "pg_user",
  "pg_pass", "pg_db", "pg_socket", "psql", "pg_sslmode",
}

-- Single-quotes a string for /bin/bash.
function M.shquote(s)
  if s:match("^[%w%%+,./:=@_-]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function dirname(p)
  return (p:match("^(.*)/[^/]*$")) or "."
end

local function is_kit(dir)
  return sys.exists(dir .. "/.bench") or sys.isdir(dir .. "/sb_exec")
end

-- The kits this bmk ships with, in order: the source tree's BMK/ next to
-- the running binary (in-tree, or one level below for an out-of-tree
-- build), then the installation's $(pkgdatadir)/BMK.
local function shipped_dirs(info)
  local exedir = dirname(info.exe or "")
  return { exedir .. "/BMK", exedir .. "/../BMK", (info.datadir or "") .. "/BMK" }
end

-- BMK_HOME for `bmk kit` run directly: $BMK_HOME; /BMK when /BMK/.bench
-- exists; the first shipped kit (above); else /BMK.
function M.home(info)
  local h = os.getenv("BMK_HOME")
  if h and h ~= "" then return h end
  if sys.exists("/BMK/.bench") then return "/BMK" end
  for _, d in ipairs(shipped_dirs(info)) do
    if is_kit(d) then return d end
  end
  return "/BMK"
end

-- The installation's own kit ($(pkgdatadir)/BMK): the package manager's
-- files, which `bmk kit generate` must not write into.
function M.installed(info)
  return (info.datadir or "") .. "/BMK"
end

-- The kit's Lua (sb_exec/lua/ with kit_oltp.lua) of the kit bmk ships
-- with: a kit home without its own sb_exec/lua/ runs these, so an upgrade
-- of bmk upgrades its workloads. Returns the directory, or nil and the
-- places looked at (", "-separated).
function M.shipped_lua(info)
  local tried = {}
  for _, d in ipairs(shipped_dirs(info)) do
    local l = d .. "/sb_exec/lua"
    if sys.exists(l .. "/kit_oltp.lua") then return l end
    tried[#tried + 1] = l
  end
  return nil, table.concat(tried, ", ")
end

-- The .bench template of the kit bmk ships with (every field commented
-- out), or nil and the places looked at.
function M.shipped_bench(info)
  local tried = {}
  for _, d in ipairs(shipped_dirs(info)) do
    if sys.exists(d .. "/.bench") then return d .. "/.bench" end
    tried[#tried + 1] = d .. "/.bench"
  end
  return nil, table.concat(tried, ", ")
end

-- Reads the fields of $home/.bench by sourcing it with /bin/bash (a
-- missing .bench gives no fields: every default applies). When the caller
-- is a generated script (BMK_BENCH_SOURCED=1), the script has already
-- sourced and exported it, so the environment is used as is. Returns
-- { field = value } or nil, message (unreadable .bench, or bash could not
-- source it to the end).
local function read_fields(home)
  local f = {}
  if os.getenv("BMK_BENCH_SOURCED") == "1" then
    for _, k in ipairs(M.FIELDS) do f[k] = os.getenv(k) end
    return f
  end
  local path = home .. "/.bench"
  if not sys.exists(path) then return f end
  local fh, e = io.open(path, "r")
  if not fh then return nil, "cannot read " .. tostring(e) .. "; fix its permissions or set BMK_HOME" end
  fh:close()
  -- The trailing marker tells a complete run from a shell that died or
  -- was ended (`exit` in .bench) half-way.
  local script = 'set -a; . "$1" >/dev/null; for v in ' .. table.concat(M.FIELDS, " ")
    .. '; do if [ -n "${!v+x}" ]; then printf "%s=%s\\0" "$v" "${!v}"; fi; done; printf "END\\0"'
  local p = io.popen("BMK_HOME=" .. M.shquote(home) .. " /bin/bash -c " .. M.shquote(script)
    .. " bmk-bench " .. M.shquote(path), "r")
  local out = p and p:read("*a") or ""
  if p then p:close() end
  if not out:find("%zEND%z$") and out ~= "END\0" then
    return nil, "cannot load " .. path .. " with /bin/bash (see the messages above); fix it or set BMK_HOME"
  end
  for k, v in out:gmatch("([%w_]+)=([^%z]*)%z") do f[k] = v end
  return f
end

local function nonempty(v) return v ~= nil and v ~= "" and v or nil end

-- Loads the configuration. Returns a table with every field resolved to
-- its value or default (passwords resolved from the environment, sb11 to
-- an executable), or nil, message.
function M.load(info)
  local home = M.home(info)
  local f, err = read_fields(home)
  if not f then return nil, err end
  local b = {}
  b.BMK_HOME = nonempty(f.BMK_HOME) or home
  b.EXT = nonempty(f.EXT) or "x64"
  b.user = nonempty(f.user) or "sbtest"
  b.pass = nonempty(f.pass) or nonempty(os.getenv("BMK_PASS")) or ""
  b.host = nonempty(f.host) or "127.0.0.1"
  b.port = nonempty(f.port) or "3306"
  b.socket = nonempty(f.socket) or "/var/run/mysqld/mysqld.sock"
  b.mysql = nonempty(f.mysql) or "mysql"
  b.db = nonempty(f.db) or "sbtest"
  b.TMP_DIR = nonempty(f.TMP_DIR) or "/tmp"
  b.sb11_MAX = tonumber(nonempty(f.sb11_MAX) or "20000")
  if not b.sb11_MAX or b.sb11_MAX < 1 or b.sb11_MAX % 1 ~= 0 then
    return nil, "invalid sb11_MAX in .bench: '" .. tostring(f.sb11_MAX) .. "' (must be an integer >= 1)"
  end
  b.driver = nonempty(f.driver) or "mysql"
  if b.driver ~= "mysql" and b.driver ~= "pgsql" then
    return nil, "invalid driver in .bench: '" .. b.driver .. "' (mysql or pgsql)"
  end
  b.pg_host = nonempty(f.pg_host) or "127.0.0.1"
  b.pg_port = nonempty(f.pg_port) or "5432"
  b.pg_user = nonempty(f.pg_user) or b.user
  b.pg_pass = nonempty(f.pg_pass) or nonempty(os.getenv("BMK_PG_PASS"))
    or nonempty(os.getenv("PGPASSWORD")) or b.pass
  b.pg_db = nonempty(f.pg_db) or b.db
  b.pg_socket = nonempty(f.pg_socket) or "/var/run/postgresql"
  b.psql = nonempty(f.psql) or "psql"
  b.pg_sslmode = nonempty(f.pg_sslmode) or "prefer"
  -- The load generator: .bench's sb11, else the bundled binary, else the
  -- running binary itself (so a source tree needs no bmk on PATH).
  b.sb11 = nonempty(f.sb11)
  if not b.sb11 then
    for _, p in ipairs({ b.BMK_HOME .. "/bin/bmk-" .. b.EXT, b.BMK_HOME .. "/bin/bmk" }) do
      if sys.executable(p) then b.sb11 = p; break end
    end
  end
  b.sb11 = b.sb11 or info.exe or "bmk"
  -- The kit's Lua: the home's own sb_exec/lua/ when it has one, else the
  -- shipped kit's (options.workload).
  if not sys.isdir(b.BMK_HOME .. "/sb_exec/lua") then
    b.kit_lua, b.kit_lua_tried = M.shipped_lua(info)
  end
  return b
end

return M

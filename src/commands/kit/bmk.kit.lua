-- bmk kit: the `bmk kit ...` command line (docs/kit.md). Entered from
-- C (src/lua/sb_kit.c) with main(args, info): args are the words after "kit",
-- info = { exe = path of the running binary, datadir = pkgdatadir }.
-- Returns the process exit status.

local names = require("bmk.kit.names")
local bench = require("bmk.kit.bench")
local options = require("bmk.kit.options")
local catalogue = require("bmk.kit.catalogue")
local launcher = require("bmk.kit.launcher")
local sys = require("bmk.kit.sys")

local M = {}

-- TPC-C is bmk's bundled `tpcc` workload (docs/tpcc.md): TPCC names run
-- `bmk tpcc ... prepare|run|cleanup`. A build without it sets this false;
-- the names then still resolve and explain.
M.TPCC_AVAILABLE = true

local USAGE = [[
Usage:
  bmk kit generate [--home=DIR] [--sizes=LIST] [--tables=LIST] [--dists=LIST] [--clean] [NAME...]
  bmk kit list [PATTERN]
  bmk kit explain NAME [ARGS...]
  bmk kit cleanup NAME [options...]
  bmk kit sql [client arguments...]
  bmk kit NAME ARGS...          (run scripts: <users> <seconds> [options...];
                                 TPCH runs: [options...];
                                 Prepare scripts: [<parallel connections>] [options...])
Kit home: $BMK_HOME, else /BMK, else the BMK/ directory of the source tree or installation.
generate --home=DIR makes DIR a kit home: sb_exec/ with the scripts, and a .bench
to edit when DIR has none; a home without sb_exec/lua/ runs the kit Lua installed
with bmk. See docs/kit.md.
]]

-- Each subcommand's own usage, printed by `bmk kit SUB --help` (stdout,
-- exit 0) as every other bmk command does; the whole USAGE lists them all.
local SUB_USAGE = {
  generate = [[
Usage: bmk kit generate [--home=DIR] [--sizes=LIST] [--tables=LIST] [--dists=LIST] [--clean] [NAME...]
Writes the kit's scripts (sb_exec/sb11-*.sh): the default catalogue, or the NAMEs given.
  --home=DIR     kit home to write into (default: the kit home below)
  --sizes=LIST   table sizes, e.g. 10K,1M (and <k>x<N>M, dbSTRESS only)
  --tables=LIST  table counts, e.g. 1,8 or 1tab,8tab
  --dists=LIST   distributions (]] .. table.concat(names.DISTS, ", ") .. [[)
  --clean        remove the other sb11-*.sh scripts
Kit home: $BMK_HOME, else /BMK, else the BMK/ directory of the source tree or installation.
See docs/kit.md.
]],
  list = [[
Usage: bmk kit list [PATTERN]
Prints the names of the kit's catalogue; PATTERN is a substring, or a glob with * and ?.
See docs/kit.md.
]],
  explain = [[
Usage: bmk kit explain NAME [ARGS...]
Prints the bmk command lines the script NAME would run with ARGS, one per line.
See docs/kit.md.
]],
  cleanup = [[
Usage: bmk kit cleanup NAME [options...]
Runs the workload's cleanup with the data set options of NAME (a Prepare or a run name).
See docs/kit.md.
]],
}

local function is_help(a)
  return a == "--help" or a == "-h"
end

local function err(msg, code)
  io.stderr:write(msg, "\n")
  return code or 1
end

local function resolve(name)
  local spec, reason = names.resolve(name)
  if not spec then
    return nil,  err("bmk kit: invalid script name '" .. name .. "': " .. reason, 2)
  end
  return spec
end

local function split_list(s)
  local t = {}
  for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end
  return t
end

-- A new kit home gets the shipped .bench (every field commented out, with
-- its default) to edit; an existing .bench is never touched. The kit's
-- Lua is not copied: a home without sb_exec/lua/ runs the shipped one.
-- Returns the exit status (1 when the template is missing or the file
-- cannot be written).
local function new_bench(home, info)
  local path = home .. "/.bench"
  if sys.exists(path) then return 0 end
  local tmpl, tried = bench.shipped_bench(info)
  if not tmpl then
    return err("bmk kit generate: no .bench template in this bmk's installation (looked for "
      .. tried .. "); reinstall bmk, or write " .. path .. " yourself (docs/kit.md)")
  end
  local fi, fo = io.open(tmpl, "r"), io.open(path, "w")
  local text = fi and fi:read("*a")
  if fi then fi:close() end
  if not text or not fo or not fo:write(text) then
    if fo then fo:close() end
    return err("bmk kit generate: cannot write " .. path .. " from " .. tmpl)
  end
  fo:close()
  io.write("wrote " .. path .. ": set the server's address and account there (docs/kit.md)\n")
  return 0
end

local function cmd_generate(args, info)
  local opts, list, home, clean = {}, {}, nil, false
  for _, a in ipairs(args) do
    if is_help(a) then
      io.write(SUB_USAGE.generate)
      return 0
    end
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if k == "home" then home = v
    elseif k == "sizes" then
      opts.sizes = split_list(v)
      for _, s in ipairs(opts.sizes) do
        if not s:match("^%d+[KM]$") and not s:match("^%d+x%d+[KM]$") then
          return err("bmk kit generate: invalid size '" .. s .. "' (expected <N>K, <N>M or <k>x<N>M)", 2)
        end
      end
    elseif k == "tables" then
      opts.tables = {}
      for _, t in ipairs(split_list(v)) do
        local n = t:match("^(%d+)$") or t:match("^(%d+)tab$")
        if not n or tonumber(n) < 1 then
          return err("bmk kit generate: invalid table count '" .. t .. "'", 2)
        end
        opts.tables[#opts.tables + 1] = n .. "tab"
      end
    elseif k == "dists" then
      opts.dists = split_list(v)
      for _, d in ipairs(opts.dists) do
        local ok = false
        for _, x in ipairs(names.DISTS) do ok = ok or x == d end
        if not ok then
          return err("bmk kit generate: invalid distribution '" .. d .. "' (one of "
            .. table.concat(names.DISTS, ", ") .. ")", 2)
        end
      end
    elseif a == "--clean" then clean = true
    elseif a:match("^%-%-") then
      return err("bmk kit generate: unknown option '" .. a .. "'", 2)
    else list[#list + 1] = a end
  end
  home = home or bench.home(info)
  if home:gsub("/+$", "") == bench.installed(info) then
    return err("bmk kit generate: " .. home .. " is the kit installed with bmk, which is the "
      .. "package manager's; make a kit home of your own: bmk kit generate --home=DIR "
      .. "(or set BMK_HOME)", 2)
  end
  local bodies = {}
  if #list > 0 then
    for _, n in ipairs(list) do
      local spec, code = resolve(n)
      if not spec then return code end
      bodies[#bodies + 1] = spec.name
    end
  else
    local all = catalogue.build(opts)
    -- The OLTP axes accept only plain sizes; <k>x<N>M is dbSTRESS-only.
    for _, b in ipairs(all) do
      if not b:match("_%d+x%d+[KM]_") then bodies[#bodies + 1] = b end
    end
  end
  local ok, e = catalogue.generate(home, bodies, clean)
  if not ok then return err("bmk kit generate: " .. e) end
  return new_bench(home, info)
end

-- Shell-style glob (* and ?) to an anchored Lua pattern; a word without
-- wildcards matches as a substring.
local function glob(p)
  if not p:find("[*?]") then
    return p:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0")
  end
  local s = p:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. s .. "$"
end

local function cmd_list(args, info)
  if #args > 1 then return err("usage: bmk kit list [PATTERN]", 2) end
  local pat = args[1] and glob(args[1])
  for _, n in ipairs(catalogue.names(bench.home(info))) do
    if not pat or n:find(pat) or n:gsub("^sb11%-", ""):gsub("%.sh$", ""):find(pat) then
      io.write(n, "\n")
    end
  end
  return 0
end

-- explain / run / cleanup of one name.
local function cmd_name(name, args, info, what)
  local spec, code = resolve(name)
  if not spec then return code end
  local b, e = bench.load(info)
  if not b then return err("bmk kit: " .. e) end
  local plan, msg, rc = options.plan(spec, b, args, what == "cleanup" and "cleanup" or "run", sys.getpid())
  if not plan then return err(msg, rc) end
  if what == "explain" then
    launcher.explain(plan)
    return 0
  end
  if spec.family == "tpcc" and not M.TPCC_AVAILABLE then
    return err("bmk kit: the tpcc workload is not available in this bmk build; "
      .. "'bmk kit explain " .. spec.name .. "' shows the commands it would run")
  end
  return launcher.execute(plan)
end

local function cmd_sql(args, info)
  local b, e = bench.load(info)
  if not b then return err("bmk kit: " .. e) end
  local argv
  if b.driver == "pgsql" then
    argv = { b.psql, "-h", b.pg_host, "-p", b.pg_port, "-U", b.pg_user, "-d", b.pg_db }
    if b.pg_pass ~= "" then sys.setenv("PGPASSWORD", b.pg_pass) end
  else
    argv = { b.mysql, "-h", b.host, "-P", b.port, "-u", b.user, b.db }
    if b.pass ~= "" then sys.setenv("MYSQL_PWD", b.pass) end
  end
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return err("bmk kit sql: " .. sys.exec(argv) .. "; set "
    .. (b.driver == "pgsql" and "psql" or "mysql") .. " in " .. b.BMK_HOME .. "/.bench", 1)
end

-- Runs `bmk kit ARGS...`: args = the words after "kit" (list of strings),
-- info = { exe, datadir } (see the top of this file). Prints to
-- stdout/stderr; returns the exit status (0, 1, 2 for a usage or name
-- error, or the status of the bmk processes).
function M.main(args, info)
  local cmd = args[1]
  if cmd == nil then
    io.stderr:write(USAGE)
    return 2
  end
  local rest = {}
  for i = 2, #args do rest[#rest + 1] = args[i] end
  if cmd == "help" or is_help(cmd) then
    io.write(USAGE)
    return 0
  elseif SUB_USAGE[cmd] and cmd ~= "generate" and is_help(rest[1]) then
    -- (generate takes --help anywhere among its options, list/explain/
    -- cleanup as their first word: after a NAME it is a bmk option)
    io.write(SUB_USAGE[cmd])
    return 0
  elseif cmd == "generate" then
    return cmd_generate(rest, info)
  elseif cmd == "list" then
    return cmd_list(rest, info)
  elseif cmd == "sql" then
    return cmd_sql(rest, info)
  elseif cmd == "explain" or cmd == "cleanup" then
    if not rest[1] then return err("usage: bmk kit " .. cmd .. " NAME [ARGS...]", 2) end
    local name = table.remove(rest, 1)
    return cmd_name(name, rest, info, cmd)
  end
  return cmd_name(cmd, rest, info, "run")
end

return M

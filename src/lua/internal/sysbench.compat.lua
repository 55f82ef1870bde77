-- bmk internal module: globals that sysbench 0.5/1.0 scripts still use
-- (sysbench 1.0.20's own oltp_common.lua calls sb_rand()). They are thin
-- aliases of the sysbench.* API; a script that defines the same names
-- replaces them, since scripts run after this module.

local ffi = require("ffi")

thread_id = sysbench.tid
test = sysbench.cmdline.script_path

sb_rand = sysbench.rand.default
sb_rand_str = sysbench.rand.string
sb_rand_uniform = sysbench.rand.uniform
sb_rand_gaussian = sysbench.rand.gaussian
sb_rand_special = sysbench.rand.special

-- A 32-bit random number as a Lua number.
function sb_rnd()
  return tonumber(ffi.C.sb_rand_uniform_uint64() % 4294967296ULL)
end

-- A value of sysbench.rand.unique() within [a, b] (default: all 32 bits).
function sb_rand_uniq(a, b)
  a = a or 0
  b = b or 4294967295
  local v
  repeat
    v = sysbench.rand.unique()
  until v >= a and v <= b
  return v
end

-- The 0.5-style database calls on one implicit connection per thread
-- (event mode: per virtual user, keyed by its id).
local legacy_cons = {}

local function legacy()
  local con = legacy_cons[ffi.C.sb_vu_current()]
  if con == nil then
    error("db_connect() must be called first", 3)
  end
  return con
end

function db_connect()
  local con = sysbench.sql.driver():connect()
  legacy_cons[ffi.C.sb_vu_current()] = con
  return con
end

function db_disconnect()
  local id = ffi.C.sb_vu_current()
  if legacy_cons[id] ~= nil then
    legacy_cons[id]:disconnect()
    legacy_cons[id] = nil
  end
end

function db_query(query)
  return legacy():query(query)
end

function db_bulk_insert_init(prefix)
  return legacy():bulk_insert_init(prefix)
end

function db_bulk_insert_next(row)
  return legacy():bulk_insert_next(row)
end

function db_bulk_insert_done()
  return legacy():bulk_insert_done()
end

function db_prepare(query)
  return legacy():prepare(query)
end

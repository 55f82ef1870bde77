-- bmk kit compat module `oltp_common` (BMK-kit's module of that name): the
-- kit OLTP options, commands and BMK-kit's global functions, for
-- kit_oltp.lua and for users' wrapper scripts written for BMK-kit, which
-- `require("oltp_common")`, define prepare_statements() and event(), and
-- call prepare_<class>() / execute_<class>(), begin(), commit(),
-- get_table_num(), get_id(), start_id(), reset_id(),
-- execute_point_selects_reconnect(trx), check_extra_query_before/after(),
-- mysql_session_opt(con), usleep(us), do_reconnect().
-- Wrapper scripts need this directory first on LUA_PATH, e.g.
--   LUA_PATH="$BMK_HOME/sb_exec/lua/?.lua;;" bmk my_oltp.lua ... run
-- The sibling kit_oltp_* modules are then found through the same entry
-- (kit_oltp.lua adds its own directory before requiring this module).

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: create, prepare, run, " ..
          "cleanup, warmup, prewarm, help", 0)
end

require("kit_oltp_opts")
require("kit_oltp_core")
require("kit_oltp_load")

-- Command errors (SQL included) print as one FATAL line without a Lua
-- position.
local guard = require("mysql_common").guard
sysbench.cmdline.commands = {
  create = {guard(cmd_create)},
  prepare = {guard(cmd_prepare), sysbench.cmdline.PARALLEL_COMMAND},
  warmup = {guard(cmd_prewarm), sysbench.cmdline.PARALLEL_COMMAND},
  prewarm = {guard(cmd_prewarm), sysbench.cmdline.PARALLEL_COMMAND},
  cleanup = {guard(cleanup)},
}

-- Option errors surface once, in the main state, before threads start.
function init()
  kit.setup(sysbench.sql.driver():name())
end

-- thread_init() / thread_done(): connect, session options, startup lines
-- and statements / close them (kit_oltp_core).
function thread_init()
  kit_thread_init()
end

function thread_done()
  kit_thread_done()
end

-- get_c_value() / get_pad_value(): c and pad text per --rand-data.
function get_c_value()
  return sysbench.rand.string(kit.c_template)
end

function get_pad_value()
  return sysbench.rand.string(kit.pad_template)
end

-- Stock oltp_common group helpers, for wrappers of oltp_read_write style:
-- prepare_transaction() / begin_transaction() / commit_transaction()
-- (no-ops with --skip-trx), prepare_reads() / execute_reads() (point
-- selects, plus the four range classes unless --range-selects=off),
-- prepare_writes() / execute_writes() (index, non-index UPDATEs and
-- DELETE/INSERT).
function prepare_transaction()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
end

function prepare_reads()
  prepare_point_selects()
  if sysbench.opt.range_selects then
    prepare_simple_ranges()
    prepare_sum_ranges()
    prepare_order_ranges()
    prepare_distinct_ranges()
  end
end

function prepare_writes()
  prepare_index_updates()
  prepare_non_index_updates()
  prepare_delete_inserts()
end

function begin_transaction()
  if not sysbench.opt.skip_trx then begin() end
end

function commit_transaction()
  if not sysbench.opt.skip_trx then commit() end
end

function execute_reads()
  execute_point_selects()
  if sysbench.opt.range_selects then
    execute_simple_ranges()
    execute_sum_ranges()
    execute_order_ranges()
    execute_distinct_ranges()
  end
end

function execute_writes()
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
end

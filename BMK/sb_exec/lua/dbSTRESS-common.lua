-- bmk kit: BMK-kit compatibility module for dbSTRESS wrapper scripts
-- (docs/kit-dbstress.md).
--
-- A wrapper written for BMK-kit does `require("dbSTRESS-common")` and
-- defines its own event(); this module gives it the kit's options,
-- commands (create, prepare, warmup/prewarm, cleanup), thread_init /
-- thread_done, the restart hook, and BMK-kit's global names. Everything
-- is a thin wrapper over kit_dbstress's modules, so the SQL, data and
-- REF choice are those of kit_dbstress.lua. The wrapper puts this
-- directory on LUA_PATH (`LUA_PATH="$BMK_HOME/sb_exec/lua/?.lua;;"`), and
-- the sibling kit_dbstress_* modules are found through the same entry.

local run = require("kit_dbstress_run")
run.install(false)

-- ops: the per-thread event counter (drives --rw-ratio). dbstress_event()
-- increments it; a wrapper with its own event() increments it itself.
ops = ops or 0

-- prepare_SEL1() / prepare_SEL2() / prepare_UPDATE() / prepare_INSDEL():
-- prepare that statement class for every set on this thread's connection
-- (connecting first if needed). Safe to call again.
function prepare_SEL1() run.prepare_class("SEL1") end
function prepare_SEL2() run.prepare_class("SEL2") end
function prepare_UPDATE() run.prepare_class("UPDATE") end
function prepare_INSDEL() run.prepare_class("INSDEL") end

-- prepare_begin_commit(): prepares BEGIN and COMMIT.
function prepare_begin_commit() run.prepare_trx() end

-- execute_SEL1([count[, set, ref]]) etc.: run the class `count` times
-- (default: its option, --SEL1 / --SEL2 / --updates / --delete-inserts).
-- With set and ref the first statement uses that pair, else it draws one;
-- repetitions draw a fresh REF in the same set. The class must be prepared.
function execute_SEL1(count, set, ref) run.execute_SEL1(count, set, ref) end
function execute_SEL2(count, set, ref) run.execute_SEL2(count, set, ref) end
function execute_UPDATE(count, set, ref) run.execute_UPDATE(count, set, ref) end
function execute_INSDEL(count, set, ref) run.execute_INSDEL(count, set, ref) end

-- get_set_num(): a set number in 1..--obj-tables (uniform).
function get_set_num() return run.get_set_num() end

-- get_ref(): an OBJECT REF string (`%010d`), inside this thread's slice
-- with --anti-dead, following --rand-type.
function get_ref() return run.get_ref() end

-- begin() / commit(): the prepared BEGIN / COMMIT.
function begin() run.begin() end
function commit() run.commit() end

-- dbstress_event(): the kit's whole event, incrementing ops.
function dbstress_event() run.event() end

-- bmk bundled workload: SELECT count(k) over --number-of-ranges k ranges of
-- width --delta joined with OR, on sbtest1; each thread draws from its own
-- slice of the table.

require("oltp_common")

sysbench.cmdline.options.number_of_ranges =
  {"Number of random BETWEEN ranges per SELECT", 10}
sysbench.cmdline.options.delta = {"Size of BETWEEN ranges", 5}
option_minimums.number_of_ranges = 1
option_minimums.delta = 0

single_table_only()

function prepare_statements()
  local n = sysbench.opt.number_of_ranges
  ranges_stmt = con:prepare("SELECT count(k) FROM sbtest1 WHERE " ..
                              string.rep("k BETWEEN ? AND ?", n, " OR "))
  ranges_params = {}
  for i = 1, 2 * n do
    ranges_params[i] = ranges_stmt:bind_create(sysbench.sql.type.INT)
  end
  ranges_stmt:bind_param(unpack(ranges_params))
end

function close_statements()
  if ranges_stmt then
    ranges_stmt:close()
    ranges_stmt = nil
  end
end

function event()
  local lo, hi = thread_slice()
  for i = 1, sysbench.opt.number_of_ranges do
    local v = sysbench.rand.default(lo, hi)
    ranges_params[2 * i - 1]:set(v)
    ranges_params[2 * i]:set(v + sysbench.opt.delta)
  end
  local rs = ranges_stmt:execute()
  if rs then
    rs:free()
  end
  check_reconnect()
end

-- bmk bundled workload: SELECT of --random-points random k values with
-- IN (...) on sbtest1; each thread draws from its own slice of the table.

require("oltp_common")

sysbench.cmdline.options.random_points =
  {"Number of random points in the IN() clause in generated SELECTs", 10}

option_minimums.random_points = 1

single_table_only()

function prepare_statements()
  local n = sysbench.opt.random_points
  local marks = string.rep("?", n, ", ")
  points_stmt = con:prepare("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" .. marks .. ")")
  points_params = {}
  for i = 1, n do
    points_params[i] = points_stmt:bind_create(sysbench.sql.type.INT)
  end
  points_stmt:bind_param(unpack(points_params))
end

function close_statements()
  if points_stmt then
    points_stmt:close()
    points_stmt = nil
  end
end

function event()
  local lo, hi = thread_slice()
  for i = 1, sysbench.opt.random_points do
    points_params[i]:set(sysbench.rand.default(lo, hi))
  end
  local rs = points_stmt:execute()
  if rs then
    rs:free()
  end
  check_reconnect()
end

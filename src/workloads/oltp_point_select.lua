-- bmk bundled workload: one point SELECT per event, no transaction.

require("oltp_common")

function prepare_statements()
  -- one query per event whatever --point-selects says
  sysbench.opt.point_selects = 1
  prepare_point_selects()
end

function event()
  execute_point_selects()
  check_reconnect()
end

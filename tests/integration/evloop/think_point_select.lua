-- oltp_point_select with a think time: each event runs the bundled
-- script's event (one point SELECT) and then sleeps --think-ms (the
-- keying/thinking pattern of many-session runs). Used by test_evloop.sh.
require("oltp_point_select")

sysbench.cmdline.options.think_ms = {"think time after each event, milliseconds", 1000}

local point_select_event = event

function event(tid)
  point_select_event(tid)
  sysbench.sleep(sysbench.opt.think_ms / 1000)
end

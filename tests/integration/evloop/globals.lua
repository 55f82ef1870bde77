-- Per-VU globals: every VU counts its own events in a global and prints
-- the count at thread_done; with globals shared between VUs the counts
-- would add up across them. Also checks that sysbench.tid, thread_id and
-- sysbench.opt.threads are the VU's, and that a write to sysbench.opt
-- stays in the VU. Used by test_evloop.sh.
count = 0

function thread_init(tid)
  assert(sysbench.tid == tid, "sysbench.tid is not the VU's")
  assert(thread_id == tid, "thread_id is not the VU's")
  sysbench.opt.mark = tid
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event(tid)
  count = count + 1
  assert(sysbench.opt.mark == tid, "sysbench.opt was written by another VU")
  con:query("SELECT 1")
end

function thread_done(tid)
  print(string.format("vu %d count %d threads %d", tid, count, sysbench.opt.threads))
  con:disconnect()
end

sysbench.cmdline.options = { mark = {"scratch option each VU overwrites", -1} }

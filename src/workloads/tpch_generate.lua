-- bmk tpch: `generate`: dbgen's flat files (src/datagen/sb_tpch_gen.h),
-- NAME.tbl or NAME.csv in --dir, or NAME.tbl.1..N with --chunks=N (as
-- `dbgen -C N -S k` names them; REGION and NATION stay whole), written by
-- --threads in parallel from one queue of chunks, with progress lines and
-- an ETA; with --updates=N also dbgen -U N's update sets (orders.tbl.uK,
-- lineitem.tbl.uK, delete.K). docs/tpch.md "generate".

local common = require("tpch_common")
local ffi = common.ffi
local C = common.C

local M = {}

-- Rows per sb_tpch_gen_write call: the progress granularity.
local STEP = 20000

local function file_name(c, t, job)
  local f = string.format("%s/%s.%s", c.dir, common.name(t), c.format)
  if job.update then return f .. ".u" .. job.update end
  if job.chunks > 1 then f = f .. "." .. job.chunk end
  return f
end

local function delete_name(c, set)
  return string.format("%s/delete.%d%s", c.dir, set, c.format == "tbl" and "" or ".csv")
end

local function create(path)
  local fd = C.sb_tpch_create(path)
  if fd < 0 then
    common.fail("cannot create %s: %s", path, ffi.string(C.strerror(ffi.errno())))
  end
  return fd
end

-- Writes job `job`'s files; counts rows in this thread's counter block.
local function run_job(c, job, cnt, tick)
  local child = common.child(job.t)
  local g = job.update and C.sb_tpch_gen_new_update(c.sf, job.update)
    or C.sb_tpch_gen_new(c.sf, job.t, job.chunk, job.chunks)
  if g == nil then common.fail("out of memory for the generator (the text pool takes 300 MiB)") end
  local fd = create(file_name(c, job.t, job))
  local cfd = child and create(file_name(c, child, job)) or -1
  local seen = 0
  local base = job.update and common.CNT_UROWS or common.CNT_ROWS
  local ok, err = pcall(function()
    while true do
      local n = C.sb_tpch_gen_write(g, common.FMT[c.format], fd, cfd, STEP)
      if n < 0 then
        common.fail("writing %s: %s", file_name(c, job.t, job), ffi.string(C.strerror(ffi.errno())))
      end
      if n == 0 then break end
      seen = common.count_batch(cnt, base, g, job.t, n, child, seen, tick)
    end
  end)
  C.close(fd)
  if cfd >= 0 then C.close(cfd) end
  C.sb_tpch_gen_free(g)
  if not ok then error(err, 0) end
  if job.update then
    local path = delete_name(c, job.update)
    local dfd = create(path)
    local n = C.sb_tpch_write_deletes(c.sf, job.update, common.FMT[c.format], dfd)
    C.close(dfd)
    if n < 0 then
      common.fail("writing %s: %s", path, ffi.string(C.strerror(ffi.errno())))
    end
    cnt[common.CNT_FILES] = cnt[common.CNT_FILES] + 1
  end
  cnt[common.CNT_JOBS] = cnt[common.CNT_JOBS] + 1
  cnt[common.CNT_FILES] = cnt[common.CNT_FILES] + (child and 2 or 1)
end

local function print_summary(c, jobs, secs)
  local s = common.sums()
  print("")
  print(string.format("Generated SF %s in %s (%d file(s), %d thread(s), %.1fs):",
                      tostring(c.sf), c.dir, tonumber(s[common.CNT_FILES]),
                      c.threads, secs))
  print(string.format("  %-10s %12s", "table", "rows"))
  local total = 0
  for t = 0, common.NT - 1 do
    local rows = tonumber(s[common.CNT_ROWS + t])
    total = total + rows
    print(string.format("  %-10s %12d", common.name(t), rows))
  end
  print(string.format("  %-10s %12d  (%.0f rows/s)", "total", total, total / math.max(secs, 0.001)))
  if c.updates > 0 then
    print(string.format("  update sets 1..%d: %d new orders, %d new line items, %d deleted " ..
                          "orders", c.updates, tonumber(s[common.CNT_UROWS + common.T.orders]),
                        tonumber(s[common.CNT_UROWS + common.T.lineitem]),
                        tonumber(s[common.CNT_UROWS + common.T.orders])))
  end
end

local function body(c, tid)
  if c.dir == "" then common.fail("generate needs --dir=DIR (where the files go)") end
  if c.chunks == 0 then c.chunks = 1 end
  local jobs = common.jobs(c, c.chunks)
  local per_set = tonumber(C.sb_tpch_update_rows(c.sc))
  for u = 1, c.updates do
    jobs[#jobs + 1] = { t = common.T.orders, update = u, rows = per_set }
  end
  if tid == 0 then
    C.mkdir(c.dir, tonumber("755", 8))   -- an existing directory is fine
    local probe = c.dir .. "/.bmk-tpch-probe"
    local fd = C.sb_tpch_create(probe)
    if fd < 0 then
      common.fail("cannot write in --dir=%s: %s", c.dir, ffi.string(C.strerror(ffi.errno())))
    end
    C.close(fd)
    os.remove(probe)
    print(string.format("Generating TPC-H-derived data, SF %s, %s files in %s, %d chunk(s), " ..
                          "%d thread(s)...", tostring(c.sf), c.format, c.dir, c.chunks, c.threads))
    io.stdout:flush()
    common.start_jobs()
  end
  local secs = common.run_jobs(c, tid, jobs, "generate", function(job, cnt, tick)
    run_job(c, job, cnt, tick)
  end)
  if tid == 0 then print_summary(c, jobs, secs) end
  return true
end

-- `generate` in thread sysbench.tid of --threads (a PARALLEL_COMMAND).
function M.cmd_generate()
  return common.parallel_command(body)
end

return M

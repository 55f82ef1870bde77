-- bmk kit: BMK-kit compatibility module for the SYNC_file start barrier
-- (docs/kit.md).
--
-- The core options --sync-file/--sync-wait do the barrier for the whole
-- process after every thread is connected; SYNC_wait() exists so that
-- wrapper scripts written for BMK-kit keep working.

local ffi = require("ffi")

ffi.cdef[[
int getpid(void);
int gethostname(char *name, size_t len);
int usleep(unsigned int usec);
int setenv(const char *name, const char *value, int overwrite);
char *getenv(const char *name);
]]

local function exists(path)
  local f = io.open(path, "r")
  if f then
    f:close()
    return true
  end
  return false
end

local function hostname()
  local buf = ffi.new("char[256]")
  if ffi.C.gethostname(buf, 256) ~= 0 then
    return "localhost"
  end
  return ffi.string(buf)
end

-- Process-wide flags: setenv() without overwrite is atomic under libc's
-- environment lock, so exactly one thread sees its own token back.
local function env_name(path, what)
  local h = 5381
  for i = 1, #path do
    h = (h * 33 + path:byte(i)) % 4294967296
  end
  return string.format("BMK_SYNC_%s_%08x", what, h)
end

local function first_in_process(path)
  local name = env_name(path, "LEADER")
  local token = tostring(sysbench.tid) .. ":" .. tostring(os.clock())
  ffi.C.setenv(name, token, 0)
  local v = ffi.C.getenv(name)
  return v ~= nil and ffi.string(v) == token
end

local function create(file, content, mode)
  local fh, err = io.open(file, mode)
  if fh == nil then
    error("SYNC-file: cannot create " .. file .. ": " .. tostring(err), 0)
  end
  fh:write(content)
  fh:close()
end

-- SYNC_wait(path, ms): waits until the start file `path` disappears,
-- checking every `ms` milliseconds (default 10, at least 1).
-- Returns at once when path is empty or equals the core --sync-file (the
-- core barrier already did the wait). Otherwise the first calling thread of
-- the process creates path (if absent) and the ready marker
-- path.ready.<pid> ("<hostname> <pid> <threads>"), prints the
-- `=> SYNC-file :` lines, and removes the marker on release; every calling
-- thread waits until path is gone. Threads that call after the release
-- return at once (path is never created twice by one process).
-- Errors with `SYNC-file: cannot create <file>: <reason>`.
function SYNC_wait(path, ms)
  if path == nil or path == "" or path == sysbench.opt.sync_file then
    return
  end
  ms = tonumber(ms) or 10
  if ms < 1 then
    ms = 1
  end
  local armed = env_name(path, "ARMED")
  local pid = ffi.C.getpid()
  local marker = string.format("%s.ready.%d", path, pid)
  local leader = first_in_process(path)
  if leader then
    print("=> SYNC-file : synchronization via " .. path)
    local ok, err = pcall(function()
      if not exists(path) then
        create(path, "", "a")
      end
      create(marker, string.format("%s %d %d\n", hostname(), pid,
                                   sysbench.opt.threads), "w")
    end)
    -- armed even on failure, so that the other threads never hang
    ffi.C.setenv(armed, "1", 1)
    if not ok then
      error(err, 0)
    end
    print("=> SYNC-file : ready to start..")
  else
    -- the leader may not have created path yet
    while ffi.C.getenv(armed) == nil do
      ffi.C.usleep(1000)
    end
  end
  while exists(path) do
    ffi.C.usleep(ms * 1000)
  end
  if leader then
    os.remove(marker)
    print("=> SYNC-file : started !")
  end
end

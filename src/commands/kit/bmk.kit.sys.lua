-- bmk kit: the few POSIX calls the kit needs, through LuaJIT's FFI
-- (process control for the launcher, file tests, environment).

local ffi = require("ffi")

ffi.cdef [[
typedef int kit_pid_t;
typedef void (*kit_sighandler_t)(int);
typedef struct { unsigned long val[16]; } kit_sigset_t;
struct kit_timespec { long tv_sec; long tv_nsec; };
struct kit_pollfd { int fd; short events; short revents; };
int fork(void);
int execvp(const char *file, char *const argv[]);
void _exit(int status);
int waitpid(int pid, int *status, int options);
int kill(int pid, int sig);
int getpid(void);
int open(const char *path, int flags, int mode);
int close(int fd);
int dup2(int oldfd, int newfd);
int pipe2(int fds[2], int flags);
long read(int fd, void *buf, unsigned long n);
long write(int fd, const void *buf, unsigned long n);
int poll(struct kit_pollfd *fds, unsigned long n, int timeout_ms);
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);
int access(const char *path, int mode);
int unlink(const char *path);
char *strerror(int errnum);
kit_sighandler_t signal(int sig, kit_sighandler_t handler);
int sigemptyset(kit_sigset_t *set);
int sigaddset(kit_sigset_t *set, int sig);
int sigprocmask(int how, const kit_sigset_t *set, kit_sigset_t *old);
int sigtimedwait(const kit_sigset_t *set, void *info, const struct kit_timespec *timeout);
int clock_gettime(int clk, struct kit_timespec *ts);
int nanosleep(const struct kit_timespec *req, struct kit_timespec *rem);
]]

local C = ffi.C
local M = { C = C }

M.SIGHUP, M.SIGINT, M.SIGKILL, M.SIGTERM = 1, 2, 9, 15
-- O_CLOEXEC on the launcher's descriptors: a child keeps only what dup2
-- gives it, not the pipe or log of another process.
local O_WRONLY, O_CREAT, O_TRUNC, O_CLOEXEC = 1, 64, 512, 524288
local WNOHANG = 1
local SIG_BLOCK, SIG_SETMASK = 0, 2

-- strerror of the current errno.
function M.errstr()
  return ffi.string(C.strerror(ffi.errno()))
end

-- True if `path` exists (any type).
function M.exists(path)
  return C.access(path, 0) == 0
end

-- True if `path` is executable by us.
function M.executable(path)
  return C.access(path, 1) == 0
end

-- True if `path` is a directory.
function M.isdir(path)
  return C.access(path .. "/.", 0) == 0
end

-- Removes `path`. Returns true on success.
function M.unlink(path) return C.unlink(path) == 0 end

-- Process id of this process.
function M.getpid() return C.getpid() end

-- Sets (value ~= nil) or removes an environment variable of this process;
-- children started later inherit it.
function M.setenv(name, value)
  if value == nil then C.unsetenv(name) else C.setenv(name, value, 1) end
end

-- Wall clock in seconds (float).
function M.now()
  local ts = ffi.new("struct kit_timespec")
  C.clock_gettime(0, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

-- Sleeps `ms` milliseconds.
function M.sleep_ms(ms)
  local ts = ffi.new("struct kit_timespec", math.floor(ms / 1000), (ms % 1000) * 1000000)
  C.nanosleep(ts, nil)
end

-- Blocks SIGHUP/SIGINT/SIGTERM in the launcher so it can poll for them
-- (pending_signal) and forward them instead of dying and leaving its
-- children, the sync file and the logs behind; children get an empty mask
-- back.
local sigs = ffi.new("kit_sigset_t")
C.sigemptyset(sigs)
C.sigaddset(sigs, M.SIGHUP)
C.sigaddset(sigs, M.SIGINT)
C.sigaddset(sigs, M.SIGTERM)
function M.block_signals()
  C.sigprocmask(SIG_BLOCK, sigs, nil)
end

-- Returns a pending SIGHUP/SIGINT/SIGTERM (consuming it) or nil, without
-- waiting.
function M.pending_signal()
  local zero = ffi.new("struct kit_timespec", 0, 0)
  local s = C.sigtimedwait(sigs, nil, zero)
  if s > 0 then return s end
  return nil
end

-- argv (list of strings) as a NULL-terminated C array. Returns the array
-- and the strings it points to (keep both alive until exec).
local function c_argv(argv)
  local n = #argv
  local cargv = ffi.new("char *[?]", n + 1)
  local keep = {}
  for i = 1, n do
    keep[i] = ffi.new("char[?]", #argv[i] + 1, argv[i])
    cargv[i - 1] = keep[i]
  end
  cargv[n] = nil
  return cargv, keep
end

-- Starts `argv` (list of strings; argv[1] is looked up on PATH).
-- opts.log: file receiving stdout and stderr; opts.pipe: true to get the
-- child's stdout through a pipe (returned read fd). Returns pid, fd or
-- nil, message (no descriptor is left open on failure). A program that
-- cannot be executed makes the child print "bmk kit: cannot run ..." and
-- exit 127.
function M.spawn(argv, opts)
  opts = opts or {}
  local cargv, keep = c_argv(argv)
  local logfd = -1
  if opts.log then
    logfd = C.open(opts.log, O_WRONLY + O_CREAT + O_TRUNC + O_CLOEXEC, 420)
    if logfd < 0 then return nil, "cannot create " .. opts.log .. ": " .. M.errstr() end
  end
  local fds = ffi.new("int[2]")
  if opts.pipe and C.pipe2(fds, O_CLOEXEC) ~= 0 then
    local e = "pipe: " .. M.errstr()
    if logfd >= 0 then C.close(logfd) end
    return nil, e
  end
  local file = argv[1]
  local pid = C.fork()
  if pid < 0 then
    local e = "fork: " .. M.errstr()
    if logfd >= 0 then C.close(logfd) end
    if opts.pipe then C.close(fds[0]); C.close(fds[1]) end
    return nil, e
  end
  if pid == 0 then
    -- Default dispositions and an empty mask: a launcher started with
    -- SIGINT ignored (`&` in a script) must still be able to stop its
    -- children with the signals it forwards.
    for _, sig in ipairs({ M.SIGHUP, M.SIGINT, M.SIGTERM }) do C.signal(sig, nil) end
    local empty = ffi.new("kit_sigset_t")
    C.sigemptyset(empty)
    C.sigprocmask(SIG_SETMASK, empty, nil)
    if logfd >= 0 then
      C.dup2(logfd, 1)
      C.dup2(logfd, 2)
    end
    if opts.pipe then C.dup2(fds[1], 1) end
    C.execvp(file, cargv)
    local msg = "bmk kit: cannot run " .. file .. ": " .. M.errstr() .. "\n"
    C.write(2, msg, #msg)
    C._exit(127)
  end
  keep = nil
  if logfd >= 0 then C.close(logfd) end
  if opts.pipe then
    C.close(fds[1])
    return pid, fds[0]
  end
  return pid
end

-- Replaces this process with `argv` (looked up on PATH). Returns only on
-- failure, with a message.
function M.exec(argv)
  local cargv, keep = c_argv(argv)
  C.execvp(argv[1], cargv)
  keep = nil
  return "cannot run " .. argv[1] .. ": " .. M.errstr()
end

-- True if `prog` can be run by execvp: a path (containing "/") that is
-- executable, or a name found executable in a $PATH directory.
function M.runnable(prog)
  if prog:find("/", 1, true) then return M.executable(prog) end
  for d in (os.getenv("PATH") or "/usr/bin:/bin"):gmatch("[^:]+") do
    if M.executable(d .. "/" .. prog) then return true end
  end
  return false
end

-- Waits for child `pid`: without waiting unless `block` is true. Returns
-- its exit status (128+signal when killed; 1 when it cannot be waited
-- for) or nil while it runs.
function M.reap(pid, block)
  local st = ffi.new("int[1]")
  local r = C.waitpid(pid, st, block and 0 or WNOHANG)
  if r == 0 then return nil end
  if r < 0 then return 1 end
  local s = st[0]
  if bit.band(s, 0x7f) == 0 then return bit.band(bit.rshift(s, 8), 0xff) end
  return 128 + bit.band(s, 0x7f)
end

-- Sends signal `sig` to process `pid`. Returns 0 or -1 (errno set).
function M.kill(pid, sig) return C.kill(pid, sig) end

local buf = ffi.new("char[65536]")
local pfd = ffi.new("struct kit_pollfd[1]")

-- Waits up to `ms` for data on `fd`. Returns a string (possibly empty when
-- nothing arrived) or nil at end of file.
function M.read_some(fd, ms)
  pfd[0].fd = fd
  pfd[0].events = 1
  pfd[0].revents = 0
  local r = C.poll(pfd, 1, ms)
  if r <= 0 then return "" end
  local n = C.read(fd, buf, 65536)
  if n > 0 then return ffi.string(buf, n) end
  if n < 0 and ffi.errno() == 4 then return "" end
  return nil
end

-- Closes file descriptor `fd`.
function M.close(fd) C.close(fd) end

-- Writes a string to a file descriptor completely.
function M.write_fd(fd, s)
  local off = 0
  while off < #s do
    local n = C.write(fd, ffi.cast("const char *", s) + off, #s - off)
    if n <= 0 then return end
    off = off + n
  end
end

return M

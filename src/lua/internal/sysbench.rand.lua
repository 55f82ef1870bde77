-- bmk internal module: sysbench.rand, as sysbench's; thin FFI
-- wrappers over src/core/sb_rand.c.

local ffi = require("ffi")

ffi.cdef[[
uint64_t sb_rand_uniform_uint64(void);
double sb_rand_uniform_double(void);
uint32_t sb_rand_uniform(uint32_t a, uint32_t b);
uint32_t sb_rand_default(uint32_t a, uint32_t b);
uint32_t sb_rand_gaussian(uint32_t a, uint32_t b);
uint32_t sb_rand_special(uint32_t a, uint32_t b);
uint32_t sb_rand_pareto(uint32_t a, uint32_t b);
uint32_t sb_rand_zipfian(uint32_t a, uint32_t b);
uint32_t sb_rand_unique(void);
void sb_rand_str(const char *fmt, char *buf);
uint32_t sb_rand_varstr(char *buf, uint32_t min_len, uint32_t max_len);
]]

local C = ffi.C

sysbench.rand = {}

function sysbench.rand.uniform_uint64()
  return C.sb_rand_uniform_uint64()
end

function sysbench.rand.uniform_double()
  return C.sb_rand_uniform_double()
end

function sysbench.rand.uniform(a, b)
  return C.sb_rand_uniform(a, b)
end

function sysbench.rand.default(a, b)
  return C.sb_rand_default(a, b)
end

function sysbench.rand.gaussian(a, b)
  return C.sb_rand_gaussian(a, b)
end

-- bmk extension: sysbench 1.1 has no rand.special (1.0.20 had it). It is
-- reachable through the metatable only, so that pairs(sysbench.rand) lists
-- exactly sysbench 1.1's functions while 1.0-era scripts calling
-- sysbench.rand.special(a, b) keep working (docs/compatibility.md).
setmetatable(sysbench.rand, { __index = {
  special = function(a, b)
    return C.sb_rand_special(a, b)
  end
} })

function sysbench.rand.pareto(a, b)
  return C.sb_rand_pareto(a, b)
end

function sysbench.rand.zipfian(a, b)
  return C.sb_rand_zipfian(a, b)
end

-- Arguments are ignored, as in sysbench.
function sysbench.rand.unique()
  return C.sb_rand_unique()
end

function sysbench.rand.string(fmt)
  local len = #fmt
  local buf = ffi.new("char[?]", len + 1)
  C.sb_rand_str(fmt, buf)
  return ffi.string(buf, len)
end

function sysbench.rand.varstring(min_len, max_len)
  assert(min_len <= max_len)
  assert(max_len > 0)
  local buf = ffi.new("char[?]", max_len)
  local len = C.sb_rand_varstr(buf, min_len, max_len)
  return ffi.string(buf, len)
end

return sysbench.rand

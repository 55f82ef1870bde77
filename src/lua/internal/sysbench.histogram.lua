-- bmk internal module: sysbench.histogram, as sysbench's.

local ffi = require("ffi")

ffi.cdef[[
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);
]]

local C = ffi.C

sysbench.histogram = {}

local methods = {
  update = function(self, value) C.sb_histogram_update(self, value) end,
  print = function(self) C.sb_histogram_print(self) end,
}

ffi.metatype("sb_histogram_t", { __index = methods, __tostring = function() return "<sb_histogram>" end })

function sysbench.histogram.new(size, range_min, range_max)
  local h = C.sb_histogram_new(size, range_min, range_max)
  if h == nil then
    error("failed to create a histogram", 2)
  end
  return ffi.gc(h, C.sb_histogram_delete)
end

return sysbench.histogram

-- bmk tpcc: stored procedures (tpcc.md §6 (c)). Filled in below.
local M = {}
function M.create_all(con, c, meta) end
function M.drop_all(con, c, sets) end
return M

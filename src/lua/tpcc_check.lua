local M = {}
function M.cmd_check() error("check: not yet", 0) end
return M

-- bmk kit: script-name grammar and resolver (docs/kit.md, Names).
--
-- A name such as "sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh" is
-- turned into a plain table (a "spec") that the option mapper reads. Every
-- rejection is reported as "bmk kit: invalid script name '<name>': <reason>"
-- by the caller; this module only produces the reason.

local M = {}

M.DISTS = { "uniform", "pareto", "zipfian", "gaussian", "special" }
local is_dist = {}
for _, d in ipairs(M.DISTS) do is_dist[d] = true end

-- Query-set tokens: prefix -> { statement classes, write?, option }.
-- Rsize/URsize change range sizes only, they select no class.
M.QSETS = {
  p_sel      = { classes = { "point" } },
  s_ranges   = { classes = { "simple" } },
  sum_ranges = { classes = { "sum" } },
  o_ranges   = { classes = { "order" } },
  dst_ranges = { classes = { "distinct" } },
  upd_idx    = { classes = { "index_update" }, write = true },
  upd_noidx  = { classes = { "non_index_update" }, write = true },
  upd_insdel = { classes = { "index_update", "non_index_update", "delete_insert" }, write = true },
  del_ins    = { classes = { "delete_insert" }, write = true },
  ins        = { classes = { "inserts" }, write = true },
  Rsize      = { option = "--range-size" },
  URsize     = { option = "--update-range-size" },
}

-- Strips the optional "sb11-" prefix and ".sh" suffix (and a directory, so
-- that "bmk kit ./sb_exec/sb11-X.sh" works too).
function M.body(name)
  local b = name:match("([^/]*)$")
  b = b:gsub("^sb11%-", ""):gsub("%.sh$", "")
  return b
end

-- Multiplier of a size suffix.
local UNIT = { K = 1000, M = 1000000 }

-- "10M" -> 10000000, or nil.
local function osize(s)
  local n, u = s:match("^(%d+)([KM])$")
  if not n or tonumber(n) < 1 then return nil end
  return tonumber(n) * UNIT[u]
end

-- "<k>x<rest>" -> k, rest; anything else -> 1, s (dbSTRESS <k>x<N>M,
-- TPCC <n>x<m>W).
local function times(s)
  local k, rest = s:match("^(%d+)x(.+)$")
  if k then return tonumber(k), rest end
  return 1, s
end

-- Classifies one flag token: returns kind, value.
local function classify(tok)
  if is_dist[tok] then return "dist", tok end
  if tok == "trx" or tok == "notrx" then return "trx", tok end
  if tok == "ps" or tok == "reconnect" or tok == "socket" or tok == "HPK"
    or tok == "NoFK" or tok == "NoFK2" or tok == "NULL" or tok == "xDEAD"
    or tok == "xREF" or tok == "RO" or tok == "SEL1" or tok == "SEL2"
    or tok == "UPD" then
    return tok, true
  end
  local rw = tok:match("^RW(%d+)$")
  if rw then return "RW", tonumber(rw) end
  -- TPCH tests: power, throughput<S>, full<S> (S query streams)
  if tok == "power" then return "tpchtest", { test = "power", token = tok } end
  local ttest, streams = tok:match("^(throughput)(%d+)$")
  if not ttest then ttest, streams = tok:match("^(full)(%d+)$") end
  if ttest then return "tpchtest", { test = ttest, streams = tonumber(streams), token = tok } end
  local prefix, count = tok:match("^([%a_]+)(%d+)$")
  if prefix and M.QSETS[prefix] then
    return "qset", { name = prefix, count = tonumber(count), token = tok }
  end
  if tok:match("^%a[%w_]*$") then return "word", tok end
  return "unknown", tok
end

-- Which families accept a flag kind (nil: all that reach the check).
local ONLY = {
  ps = { oltp = true }, qset = { oltp = true }, reconnect = { oltp = true },
  HPK = { dbstress = true }, xDEAD = { dbstress = true },
  xREF = { dbstress = true }, RO = { dbstress = true },
  SEL1 = { dbstress = true }, SEL2 = { dbstress = true },
  RW = { dbstress = true }, UPD = { dbstress = true },
  NULL = { tpcc = true }, NoFK = { tpcc = true }, NoFK2 = { tpcc = true },
  tpchtest = { tpch = true },
}
local FAMILY_LABEL = { oltp = "OLTP", dbstress = "dbSTRESS", tpcc = "TPCC", tpch = "TPCH" }

-- Parses the head token. Returns a partial spec or nil, reason.
local function parse_head(head)
  local spec = {}
  local rest = head:match("^Prepare_(.*)$")
  if rest then
    spec.prepare = true
    head = rest
  end
  local mode, sz, nt
  if not spec.prepare then
    mode, sz, nt = head:match("^OLTP_(R[OW])_([^_]+)_(%d+)tab$")
  elseif head:match("^OLTP_R[OW]_") then
    return nil, "a Prepare name has no OLTP_RO/OLTP_RW part (use Prepare_<size>_<n>tab)"
  else
    sz, nt = head:match("^([^_]+)_(%d+)tab$")
  end
  if sz then
    spec.family, spec.mode = "oltp", mode
    spec.rows = osize(sz)
    if not spec.rows then return nil, "invalid size '" .. sz .. "' (expected <N>K or <N>M)" end
    spec.tables = tonumber(nt)
    if spec.tables < 1 then return nil, "the table count must be at least 1" end
    return spec
  end
  -- TPCH_SF<n>: TPC-H's scale factor (whole from 1 up, or a fraction
  -- below 1: SF0.1); the text is kept as given for --scale.
  local sf = head:match("^TPCH_(.+)$")
  if sf then
    local v = sf:match("^SF(%d+%.?%d*)$")
    if not v or not (tonumber(v) > 0) or (tonumber(v) >= 1 and v:find(".", 1, true)) then
      return nil, "invalid scale factor '" .. sf .. "' (expected SF<n>, e.g. SF1, SF100, or " ..
        "SF0.1 below 1)"
    end
    spec.family, spec.tpch_sf = "tpch", v
    return spec
  end
  -- dbSTRESS_[<k>x]<N>M and TPCC_[<n>x]<m>W: a count of tables, then the
  -- size of each.
  local fam, arg = head:match("^(dbSTRESS)_(.+)$")
  if not fam then fam, arg = head:match("^(TPCC)_(.+)$") end
  if fam then
    local k, s = times(arg)
    if fam == "dbSTRESS" then
      spec.family, spec.obj_tables, spec.obj_size = "dbstress", k, osize(s)
      if not spec.obj_size or k < 1 then
        return nil, "invalid dbSTRESS size '" .. arg .. "' (expected <N>M, <N>K or <k>x<N>M)"
      end
    else
      spec.family, spec.tpcc_tables, spec.tpcc_scale = "tpcc", k, tonumber(s:match("^(%d+)W$"))
      if not spec.tpcc_scale then
        return nil, "invalid warehouse count '" .. arg .. "' (expected <n>W or <n>x<m>W)"
      end
      if k < 1 or spec.tpcc_scale < 1 then return nil, "the warehouse count must be at least 1" end
    end
    return spec
  end
  return nil, "unknown workload '" .. head .. "' (expected Prepare_..., OLTP_RO_..., "
    .. "OLTP_RW_..., dbSTRESS_..., TPCC_... or TPCH_...)"
end

-- Resolves a script name. Returns spec or nil, reason. The spec fields:
--   name (body without sb11-/.sh), family ("oltp"|"dbstress"|"tpcc"),
--   prepare (bool), mode ("RO"|"RW", OLTP runs), rows, tables (OLTP),
--   obj_size, obj_tables (dbSTRESS), tpcc_tables, tpcc_scale (TPCC),
--   tpch_sf (TPCH: the scale factor's text), tpch_test ({test = "power"|
--   "throughput"|"full", streams = S or nil}, TPCH runs),
--   dist, ps, trx (true|false|nil), socket, reconnect, engine, hpk, nofk
--   (nil|"NoFK"|"NoFK2"), null, xdead, xref, dmode ({kind="RO", sel=nil|
--   "SEL1"|"SEL2"} or {kind="RW", ratio=N, upd=bool}), qsets (list of
--   {name, count, token} in name order).
function M.resolve(name)
  local body = M.body(name)
  if body == "" then return nil, "empty name" end
  local toks = {}
  for t in (body .. "-"):gmatch("([^-]*)%-") do toks[#toks + 1] = t end
  local spec, err = parse_head(toks[1])
  if not spec then return nil, err end
  spec.name = body
  spec.qsets = {}
  local fam = spec.family
  local label = spec.prepare and "Prepare" or FAMILY_LABEL[fam]
  local seen = {}
  local rw_token, sel_token

  for i = 2, #toks do
    local tok = toks[i]
    if tok == "" then return nil, "empty token (two '-' in a row or a trailing '-')" end
    if seen[tok] then return nil, "duplicate token '" .. tok .. "'" end
    seen[tok] = true
    local kind, val = classify(tok)
    if kind == "unknown" then return nil, "unknown token '" .. tok .. "'" end
    if kind == "word" then
      if not spec.prepare then return nil, "unknown token '" .. tok .. "'" end
      if spec.engine then
        return nil, "more than one storage engine ('" .. spec.engine .. "' and '" .. tok .. "')"
      end
      spec.engine = tok
    else
      -- Family checks first: they give the most useful reason.
      if kind == "HPK" and fam ~= "dbstress" then
        return nil, "'HPK' is only valid in dbSTRESS names"
      end
      if (kind == "NULL" or kind == "NoFK" or kind == "NoFK2") and fam ~= "tpcc" then
        return nil, "'" .. tok .. "' is only valid in TPCC names"
      end
      if kind == "qset" and val.name ~= "Rsize" and val.name ~= "URsize" and spec.prepare then
        return nil, "'" .. tok .. "' is not valid in a Prepare name"
      end
      local only = ONLY[kind]
      if only and not only[fam] then
        local fams = {}
        for f in pairs(only) do fams[#fams + 1] = FAMILY_LABEL[f] end
        return nil, "'" .. tok .. "' is only valid in " .. table.concat(fams, "/") .. " names"
      end
      if spec.prepare and kind ~= "socket" and kind ~= "HPK" and kind ~= "NoFK"
        and kind ~= "NoFK2" and kind ~= "NULL" then
        return nil, "'" .. tok .. "' is not valid in a Prepare name"
      end
      if (fam == "tpcc" or fam == "tpch") and (kind == "dist" or kind == "trx") then
        return nil, "'" .. tok .. "' is not valid in a " .. FAMILY_LABEL[fam] .. " name"
      end

      if kind == "dist" then
        if spec.dist then
          return nil, "more than one distribution ('" .. spec.dist .. "' and '" .. tok .. "')"
        end
        spec.dist = tok
      elseif kind == "trx" then
        if spec.trx ~= nil then return nil, "both 'trx' and 'notrx'" end
        spec.trx = (tok == "trx")
      elseif kind == "ps" then spec.ps = true
      elseif kind == "socket" then spec.socket = true
      elseif kind == "reconnect" then
        if spec.mode == "RW" then return nil, "'reconnect' is not valid in an OLTP_RW name" end
        spec.reconnect = true
      elseif kind == "HPK" then spec.hpk = true
      elseif kind == "NULL" then spec.null = true
      elseif kind == "NoFK" or kind == "NoFK2" then
        if spec.nofk then return nil, "both 'NoFK' and 'NoFK2'" end
        spec.nofk = tok
      elseif kind == "xDEAD" then spec.xdead = true
      elseif kind == "xREF" then spec.xref = true
      elseif kind == "qset" then
        if M.QSETS[val.name].write and spec.mode == "RO" then
          return nil, "write query set '" .. tok .. "' in an OLTP_RO name"
        end
        for _, q in ipairs(spec.qsets) do
          if q.name == val.name then
            return nil, "duplicate query set '" .. val.name .. "' ('" .. q.token
              .. "' and '" .. tok .. "')"
          end
        end
        spec.qsets[#spec.qsets + 1] = val
      elseif kind == "RO" or kind == "RW" then
        if spec.dmode then
          return nil, "more than one dbSTRESS mode ('" .. spec.dmode.token .. "' and '" .. tok .. "')"
        end
        spec.dmode = kind == "RO" and { kind = "RO", token = tok }
          or { kind = "RW", ratio = val, token = tok }
      elseif kind == "SEL1" or kind == "SEL2" then
        if sel_token then return nil, "both 'SEL1' and 'SEL2'" end
        sel_token = tok
      elseif kind == "UPD" then
        rw_token = tok
      elseif kind == "tpchtest" then
        if spec.tpch_test then
          return nil, "more than one TPCH test ('" .. spec.tpch_test.token .. "' and '" .. tok .. "')"
        end
        if val.streams and val.streams < 1 then
          return nil, "'" .. tok .. "': the stream count must be at least 1"
        end
        spec.tpch_test = val
      end
    end
  end

  -- Whole-name checks.
  if fam == "oltp" and not spec.prepare then
    if not spec.dist then
      return nil, "missing distribution (one of " .. table.concat(M.DISTS, ", ") .. ")"
    end
  end
  if (fam == "oltp" or fam == "dbstress") and not spec.prepare and spec.trx == nil then
    return nil, "missing 'trx' or 'notrx'"
  end
  if fam == "dbstress" and not spec.prepare then
    if not spec.dmode then
      return nil, "missing dbSTRESS mode (RO, RO-SEL1, RO-SEL2, RW<N> or RW<N>-UPD)"
    end
    if sel_token then
      if spec.dmode.kind ~= "RO" then return nil, "'" .. sel_token .. "' needs the RO mode" end
      spec.dmode.sel = sel_token
    end
    if rw_token then
      if spec.dmode.kind ~= "RW" then return nil, "'UPD' needs an RW<N> mode" end
      spec.dmode.upd = true
    end
    spec.dist = spec.dist or "uniform"
  end
  if fam == "tpch" and not spec.prepare and not spec.tpch_test then
    return nil, "missing TPCH test (power, throughput<S> or full<S>)"
  end
  if spec.prepare and not spec.engine then
    return nil, "missing storage engine (e.g. InnoDB)"
  end
  return spec
end

return M

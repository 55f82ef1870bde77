-- bmk tpch: the schema (TPC-H specification v3.0.1 clause 1.4): tables
-- with DECIMAL(15,2) money and DATE dates, the primary keys of clause
-- 1.4.2.2, the foreign keys of clause 1.4.2.3 and the secondary indexes
-- bmk offers (clause 1.5.7 allows indexes on primary and foreign key
-- columns and single-column indexes on DATE columns), one dialect each for
-- MySQL/MariaDB and PostgreSQL. docs/tpch.md "Schema".

local M = {}

-- name -> column definitions, in file order (the generator's).
local COLUMNS = {
  region = { "r_regionkey INTEGER NOT NULL", "r_name CHAR(25) NOT NULL",
             "r_comment VARCHAR(152) NOT NULL" },
  nation = { "n_nationkey INTEGER NOT NULL", "n_name CHAR(25) NOT NULL",
             "n_regionkey INTEGER NOT NULL", "n_comment VARCHAR(152) NOT NULL" },
  part = { "p_partkey INTEGER NOT NULL", "p_name VARCHAR(55) NOT NULL",
           "p_mfgr CHAR(25) NOT NULL", "p_brand CHAR(10) NOT NULL",
           "p_type VARCHAR(25) NOT NULL", "p_size INTEGER NOT NULL",
           "p_container CHAR(10) NOT NULL", "p_retailprice DECIMAL(15,2) NOT NULL",
           "p_comment VARCHAR(23) NOT NULL" },
  supplier = { "s_suppkey INTEGER NOT NULL", "s_name CHAR(25) NOT NULL",
               "s_address VARCHAR(40) NOT NULL", "s_nationkey INTEGER NOT NULL",
               "s_phone CHAR(15) NOT NULL", "s_acctbal DECIMAL(15,2) NOT NULL",
               "s_comment VARCHAR(101) NOT NULL" },
  partsupp = { "ps_partkey INTEGER NOT NULL", "ps_suppkey INTEGER NOT NULL",
               "ps_availqty INTEGER NOT NULL", "ps_supplycost DECIMAL(15,2) NOT NULL",
               "ps_comment VARCHAR(199) NOT NULL" },
  customer = { "c_custkey INTEGER NOT NULL", "c_name VARCHAR(25) NOT NULL",
               "c_address VARCHAR(40) NOT NULL", "c_nationkey INTEGER NOT NULL",
               "c_phone CHAR(15) NOT NULL", "c_acctbal DECIMAL(15,2) NOT NULL",
               "c_mktsegment CHAR(10) NOT NULL", "c_comment VARCHAR(117) NOT NULL" },
  orders = { "o_orderkey BIGINT NOT NULL", "o_custkey INTEGER NOT NULL",
             "o_orderstatus CHAR(1) NOT NULL", "o_totalprice DECIMAL(15,2) NOT NULL",
             "o_orderdate DATE NOT NULL", "o_orderpriority CHAR(15) NOT NULL",
             "o_clerk CHAR(15) NOT NULL", "o_shippriority INTEGER NOT NULL",
             "o_comment VARCHAR(79) NOT NULL" },
  lineitem = { "l_orderkey BIGINT NOT NULL", "l_partkey INTEGER NOT NULL",
               "l_suppkey INTEGER NOT NULL", "l_linenumber INTEGER NOT NULL",
               "l_quantity DECIMAL(15,2) NOT NULL", "l_extendedprice DECIMAL(15,2) NOT NULL",
               "l_discount DECIMAL(15,2) NOT NULL", "l_tax DECIMAL(15,2) NOT NULL",
               "l_returnflag CHAR(1) NOT NULL", "l_linestatus CHAR(1) NOT NULL",
               "l_shipdate DATE NOT NULL", "l_commitdate DATE NOT NULL",
               "l_receiptdate DATE NOT NULL", "l_shipinstruct CHAR(25) NOT NULL",
               "l_shipmode CHAR(10) NOT NULL", "l_comment VARCHAR(44) NOT NULL" },
}

M.TABLES = { "region", "nation", "part", "supplier", "partsupp", "customer", "orders",
             "lineitem" }

-- Primary keys (clause 1.4.2.2).
M.PKEYS = {
  region = "r_regionkey", nation = "n_nationkey", part = "p_partkey",
  supplier = "s_suppkey", partsupp = "ps_partkey, ps_suppkey", customer = "c_custkey",
  orders = "o_orderkey", lineitem = "l_orderkey, l_linenumber",
}

-- Foreign keys (clause 1.4.2.3): {table, name, columns, referenced}.
M.FKEYS = {
  { "nation", "nation_fk1", "n_regionkey", "region (r_regionkey)" },
  { "supplier", "supplier_fk1", "s_nationkey", "nation (n_nationkey)" },
  { "customer", "customer_fk1", "c_nationkey", "nation (n_nationkey)" },
  { "partsupp", "partsupp_fk1", "ps_suppkey", "supplier (s_suppkey)" },
  { "partsupp", "partsupp_fk2", "ps_partkey", "part (p_partkey)" },
  { "orders", "orders_fk1", "o_custkey", "customer (c_custkey)" },
  { "lineitem", "lineitem_fk1", "l_orderkey", "orders (o_orderkey)" },
  { "lineitem", "lineitem_fk2", "l_partkey, l_suppkey",
    "partsupp (ps_partkey, ps_suppkey)" },
}

-- Secondary indexes (--indexes): foreign key columns not led by a primary
-- key, and the DATE columns the queries restrict. {table, name, columns}.
M.INDEXES = {
  { "nation", "nation_ix1", "n_regionkey" },
  { "supplier", "supplier_ix1", "s_nationkey" },
  { "customer", "customer_ix1", "c_nationkey" },
  { "partsupp", "partsupp_ix1", "ps_suppkey" },
  { "orders", "orders_ix1", "o_custkey" },
  { "orders", "orders_ix2", "o_orderdate" },
  { "lineitem", "lineitem_ix1", "l_partkey, l_suppkey" },
  { "lineitem", "lineitem_ix2", "l_shipdate" },
}

-- CREATE TABLE of `name`. MySQL gets its primary key here (InnoDB
-- clusters on it, so loading into it is the fast way); PostgreSQL after
-- the load (M.add_pkey).
function M.create_sql(c, name)
  local cols = table.concat(COLUMNS[name], ", ")
  if c.pg then
    return string.format("CREATE TABLE %s (%s)", name, cols)
  end
  return string.format("CREATE TABLE %s (%s, PRIMARY KEY (%s)) ENGINE=%s", name, cols,
                       M.PKEYS[name], c.engine)
end

function M.pkey_sql(c, name)
  if not c.pg then return nil end
  return string.format("ALTER TABLE %s ADD PRIMARY KEY (%s)", name, M.PKEYS[name])
end

function M.fkey_sql(fk)
  return string.format("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s",
                       fk[1], fk[2], fk[3], fk[4])
end

function M.index_sql(ix)
  return string.format("CREATE INDEX %s ON %s (%s)", ix[2], ix[1], ix[3])
end

function M.analyze_sql(c, name)
  return (c.pg and "ANALYZE " or "ANALYZE TABLE ") .. name
end

function M.drop_sql(c, name)
  return "DROP TABLE IF EXISTS " .. name .. (c.pg and " CASCADE" or "")
end

return M

-- bmk bundled workload: multi-row INSERTs through the bulk insert API,
-- one table per thread (sbtest1..sbtest<threads>).

function prepare()
  local con = sysbench.sql.driver():connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Creating table 'sbtest%d'...", i))
    con:query(string.format("CREATE TABLE IF NOT EXISTS sbtest%d (id INTEGER NOT NULL, " ..
                              "k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))", i))
  end
end

function thread_init(tid)
  drv = sysbench.sql.driver()
  con = drv:connect()
  next_id = 0
  con:bulk_insert_init(string.format("INSERT INTO sbtest%d VALUES", tid + 1))
end

function event()
  next_id = next_id + 1
  con:bulk_insert_next(string.format("(%d,%d)", next_id, next_id))
end

function thread_done()
  con:bulk_insert_done()
  con:disconnect()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  for i = 1, sysbench.opt.threads do
    print(string.format("Dropping table 'sbtest%d'...", i))
    con:query("DROP TABLE IF EXISTS sbtest" .. i)
  end
end

-- bmk chbench: the 22 analytic queries of CH-benCHmark (Cole et al., "The
-- mixed workload CH-benCHmark", DBTest 2011), written from the published
-- query definitions for bmk's TPC-C tables (set 1: order_line1, ...) and
-- the added SUPPLIER, NATION and REGION. Where bmk departs from the
-- published text (a dialect's spelling, the nation key, date bounds) the
-- query's entry in docs/chbench.md "Queries" says so.
--
-- Placeholders: {name} a TPC-C table of set 1; {LIKE} the case-sensitive
-- LIKE of the dialect; {NATION} the customer's nation key from c_state;
-- {END} the upper date bound.

local M = {}

M.COUNT = 22

-- The nation of a customer: the code of c_state's first character, the
-- paper's nation key (chbench_schema.lua).
local NATION = "ascii(substr(c_state,1,1))"

-- The published upper date bounds (2012, 2020) lie before the data bmk
-- loads, stamped with the load's date; they become this one.
local END = "'2100-01-01 00:00:00'"

local Q = {}

Q[1] = [[
select ol_number, sum(ol_quantity) as sum_qty, sum(ol_amount) as sum_amount,
  avg(ol_quantity) as avg_qty, avg(ol_amount) as avg_amount, count(*) as count_order
from {order_line}
where ol_delivery_d > '2007-01-02 00:00:00'
group by ol_number order by ol_number]]

Q[2] = [[
select su_suppkey, su_name, n_name, i_id, i_name, su_address, su_phone, su_comment
from {item}, supplier, {stock}, nation, region,
  (select s_i_id as m_i_id, min(s_quantity) as m_s_quantity
   from {stock}, supplier, nation, region
   where mod((s_w_id * s_i_id), 10000) = su_suppkey and su_nationkey = n_nationkey
     and n_regionkey = r_regionkey and r_name {LIKE} 'Europ%'
   group by s_i_id) m
where i_id = s_i_id and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and su_nationkey = n_nationkey and n_regionkey = r_regionkey
  and i_data {LIKE} '%b' and r_name {LIKE} 'Europ%'
  and i_id = m_i_id and s_quantity = m_s_quantity
order by n_name, su_name, i_id]]

Q[3] = [[
select ol_o_id, ol_w_id, ol_d_id, sum(ol_amount) as revenue, o_entry_d
from {customer}, {new_orders}, {orders}, {order_line}
where c_state {LIKE} 'A%' and c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and no_w_id = o_w_id and no_d_id = o_d_id and no_o_id = o_id
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and o_entry_d > '2007-01-02 00:00:00'
group by ol_o_id, ol_w_id, ol_d_id, o_entry_d
order by revenue desc, o_entry_d]]

Q[4] = [[
select o_ol_cnt, count(*) as order_count
from {orders}
where o_entry_d >= '2007-01-02 00:00:00' and o_entry_d < {END}
  and exists (select * from {order_line} where o_id = ol_o_id and o_w_id = ol_w_id
              and o_d_id = ol_d_id and ol_delivery_d >= o_entry_d)
group by o_ol_cnt order by o_ol_cnt]]

Q[5] = [[
select n_name, sum(ol_amount) as revenue
from {customer}, {orders}, {order_line}, {stock}, supplier, nation, region
where c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and ol_o_id = o_id and ol_w_id = o_w_id and ol_d_id = o_d_id
  and ol_w_id = s_w_id and ol_i_id = s_i_id
  and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and {NATION} = su_nationkey and su_nationkey = n_nationkey
  and n_regionkey = r_regionkey and r_name = 'Europe'
  and o_entry_d >= '2007-01-02 00:00:00'
group by n_name order by revenue desc]]

Q[6] = [[
select sum(ol_amount) as revenue
from {order_line}
where ol_delivery_d >= '1999-01-01 00:00:00' and ol_delivery_d < {END}
  and ol_quantity between 1 and 100000]]

Q[7] = [[
select su_nationkey as supp_nation, substr(c_state,1,1) as cust_nation,
  extract(year from o_entry_d) as l_year, sum(ol_amount) as revenue
from supplier, {stock}, {order_line}, {orders}, {customer}, nation n1, nation n2
where ol_supply_w_id = s_w_id and ol_i_id = s_i_id
  and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and su_nationkey = n1.n_nationkey and {NATION} = n2.n_nationkey
  and ((n1.n_name = 'Germany' and n2.n_name = 'Cambodia')
    or (n1.n_name = 'Cambodia' and n2.n_name = 'Germany'))
  and ol_delivery_d between '2007-01-02 00:00:00' and {END}
group by su_nationkey, substr(c_state,1,1), extract(year from o_entry_d)
order by su_nationkey, cust_nation, l_year]]

Q[8] = [[
select extract(year from o_entry_d) as l_year,
  sum(case when n2.n_name = 'Germany' then ol_amount else 0 end) /
    nullif(sum(ol_amount), 0) as mkt_share
from {item}, supplier, {stock}, {order_line}, {orders}, {customer}, nation n1, nation n2,
  region
where i_id = s_i_id and ol_i_id = s_i_id and ol_supply_w_id = s_w_id
  and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and n1.n_nationkey = {NATION} and n1.n_regionkey = r_regionkey
  and ol_i_id < 1000 and r_name = 'Europe' and su_nationkey = n2.n_nationkey
  and o_entry_d between '2007-01-02 00:00:00' and {END}
  and i_data {LIKE} '%b' and i_id = ol_i_id
group by extract(year from o_entry_d) order by l_year]]

Q[9] = [[
select n_name, extract(year from o_entry_d) as l_year, sum(ol_amount) as sum_profit
from {item}, {stock}, supplier, {order_line}, {orders}, nation
where ol_i_id = s_i_id and ol_supply_w_id = s_w_id
  and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and ol_i_id = i_id and su_nationkey = n_nationkey and i_data {LIKE} '%BB'
group by n_name, extract(year from o_entry_d)
order by n_name, l_year desc]]

Q[10] = [[
select c_id, c_last, sum(ol_amount) as revenue, c_city, c_phone, n_name
from {customer}, {orders}, {order_line}, nation
where c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and o_entry_d >= '2007-01-02 00:00:00' and o_entry_d <= ol_delivery_d
  and n_nationkey = {NATION}
group by c_id, c_last, c_city, c_phone, n_name
order by revenue desc]]

Q[11] = [[
select s_i_id, sum(s_order_cnt) as ordercount
from {stock}, supplier, nation
where mod((s_w_id * s_i_id), 10000) = su_suppkey and su_nationkey = n_nationkey
  and n_name = 'Germany'
group by s_i_id
having sum(s_order_cnt) >
  (select sum(s_order_cnt) * .005
   from {stock}, supplier, nation
   where mod((s_w_id * s_i_id), 10000) = su_suppkey and su_nationkey = n_nationkey
     and n_name = 'Germany')
order by ordercount desc]]

Q[12] = [[
select o_ol_cnt,
  sum(case when o_carrier_id = 1 or o_carrier_id = 2 then 1 else 0 end) as high_line_count,
  sum(case when o_carrier_id <> 1 and o_carrier_id <> 2 then 1 else 0 end) as low_line_count
from {orders}, {order_line}
where ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
  and o_entry_d <= ol_delivery_d and ol_delivery_d < {END}
group by o_ol_cnt order by o_ol_cnt]]

Q[13] = [[
select c_count, count(*) as custdist
from (select c_id, count(o_id) as c_count
      from {customer} left outer join {orders} on (c_w_id = o_w_id and c_d_id = o_d_id
        and c_id = o_c_id and o_carrier_id > 8)
      group by c_id) as c_orders
group by c_count order by custdist desc, c_count desc]]

Q[14] = [[
select 100.00 * sum(case when i_data {LIKE} 'PR%' then ol_amount else 0 end) /
  (1 + sum(ol_amount)) as promo_revenue
from {order_line}, {item}
where ol_i_id = i_id and ol_delivery_d >= '2007-01-02 00:00:00' and ol_delivery_d < {END}]]

Q[15] = [[
with revenue (supplier_no, total_revenue) as (
  select mod((s_w_id * s_i_id), 10000) as supplier_no, sum(ol_amount) as total_revenue
  from {order_line}, {stock}
  where ol_i_id = s_i_id and ol_supply_w_id = s_w_id
    and ol_delivery_d >= '2007-01-02 00:00:00'
  group by mod((s_w_id * s_i_id), 10000))
select su_suppkey, su_name, su_address, su_phone, total_revenue
from supplier, revenue
where su_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue)
order by su_suppkey]]

Q[16] = [[
select i_name, substr(i_data, 1, 3) as brand, i_price,
  count(distinct (mod((s_w_id * s_i_id), 10000))) as supplier_cnt
from {stock}, {item}
where i_id = s_i_id and i_data not {LIKE} 'zz%'
  and (mod((s_w_id * s_i_id), 10000) not in
       (select su_suppkey from supplier where su_comment {LIKE} '%bad%'))
group by i_name, substr(i_data, 1, 3), i_price
order by supplier_cnt desc]]

Q[17] = [[
select sum(ol_amount) / 2.0 as avg_yearly
from {order_line},
  (select i_id, avg(ol_quantity) as a
   from {item}, {order_line}
   where i_data {LIKE} '%b' and ol_i_id = i_id
   group by i_id) t
where ol_i_id = t.i_id and ol_quantity < t.a]]

Q[18] = [[
select c_last, c_id, o_id, o_entry_d, o_ol_cnt, sum(ol_amount) as amount_sum
from {customer}, {orders}, {order_line}
where c_id = o_c_id and c_w_id = o_w_id and c_d_id = o_d_id
  and ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id
group by o_id, o_w_id, o_d_id, c_id, c_last, o_entry_d, o_ol_cnt
having sum(ol_amount) > 200
order by amount_sum desc, o_entry_d]]

Q[19] = [[
select sum(ol_amount) as revenue
from {order_line}, {item}
where (ol_i_id = i_id and i_data {LIKE} '%a' and ol_quantity >= 1 and ol_quantity <= 10
       and i_price between 1 and 400000 and ol_w_id in (1,2,3))
   or (ol_i_id = i_id and i_data {LIKE} '%b' and ol_quantity >= 1 and ol_quantity <= 10
       and i_price between 1 and 400000 and ol_w_id in (1,2,4))
   or (ol_i_id = i_id and i_data {LIKE} '%c' and ol_quantity >= 1 and ol_quantity <= 10
       and i_price between 1 and 400000 and ol_w_id in (1,5,3))]]

Q[20] = [[
select su_name, su_address
from supplier, nation
where su_suppkey in
    (select mod(s_i_id * s_w_id, 10000)
     from {stock}, {order_line}
     where s_i_id in (select i_id from {item} where i_data {LIKE} 'co%')
       and ol_i_id = s_i_id and ol_delivery_d > '2010-05-23 12:00:00'
     group by s_i_id, s_w_id, s_quantity
     having 2 * s_quantity > sum(ol_quantity))
  and su_nationkey = n_nationkey and n_name = 'Germany'
order by su_name]]

Q[21] = [[
select su_name, count(*) as numwait
from supplier, {order_line} l1, {orders}, {stock}, nation
where ol_o_id = o_id and ol_w_id = o_w_id and ol_d_id = o_d_id
  and ol_w_id = s_w_id and ol_i_id = s_i_id
  and mod((s_w_id * s_i_id), 10000) = su_suppkey
  and l1.ol_delivery_d > o_entry_d
  and not exists (select * from {order_line} l2
                  where l2.ol_o_id = l1.ol_o_id and l2.ol_w_id = l1.ol_w_id
                    and l2.ol_d_id = l1.ol_d_id and l2.ol_delivery_d > l1.ol_delivery_d)
  and su_nationkey = n_nationkey and n_name = 'Germany'
group by su_name order by numwait desc, su_name]]

Q[22] = [[
select substr(c_state,1,1) as country, count(*) as numcust, sum(c_balance) as totacctbal
from {customer}
where substr(c_phone,1,1) in ('1','2','3','4','5','6','7')
  and c_balance > (select avg(c_balance) from {customer}
                   where c_balance > 0.00
                     and substr(c_phone,1,1) in ('1','2','3','4','5','6','7'))
  and not exists (select * from {orders} where o_c_id = c_id and o_w_id = c_w_id
                  and o_d_id = c_d_id and o_entry_d > '2007-01-02 00:00:00')
group by substr(c_state,1,1) order by substr(c_state,1,1)]]

-- Each query's columns, for comparing results (chbench_answers.lua):
-- k exact number, t exact text (trailing blanks ignored), s a sum
-- (within 100), a an average or ratio (within 1%), x not compared (the
-- load's timestamps differ between two prepares).
M.KINDS = {
  "kssaak", "kttktttt", "kkksx", "kk", "ts", "s", "ktks", "ka", "tks", "ktsttt",
  "kk", "kkk", "kk", "a", "kttts", "ttkk", "s", "tkkxks", "s", "tt", "tk", "tks",
}

-- Query q's text for the dialect (pg: PostgreSQL, else MySQL/MariaDB),
-- its tables those of set `set`. MySQL's LIKE follows the column's
-- collation, case-insensitive by default: LIKE BINARY keeps the
-- published, case-sensitive match. Pure; raises for an unknown q.
function M.text(q, pg, set)
  local sql = Q[q]
  if not sql then error(string.format("no CH-benCHmark query %s", tostring(q)), 0) end
  local sub = { LIKE = pg and "like" or "like binary", NATION = NATION, END = END }
  return (sql:gsub("{([%w_]+)}", function(k)
    return sub[k] or (k .. set)
  end))
end

return M

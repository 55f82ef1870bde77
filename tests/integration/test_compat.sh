#!/usr/bin/env bash
# Third-party scripts run unmodified: Debian's sysbench 1.0.20 workloads
# (/usr/share/sysbench, their own oltp_common.lua) executed by bmk on both
# databases, with sysbench's query mix per event.
set -u
source "$(dirname "$0")/lib/lib.sh"

if [ ! -d /usr/share/sysbench ]; then
  echo "sysbench is not installed (apt-get install sysbench): cannot run these checks"
  not_ok "sysbench 1.0.20 scripts present"
  finish
  exit 1
fi
# Run from the scripts' directory so require("oltp_common") loads
# sysbench's own file (./?.lua comes first on the search path).
cd /usr/share/sysbench

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  O="$O --tables=2 --table-size=500"
  "$BMK" oltp_read_write $O cleanup >/dev/null 2>&1
  run_bmk oltp_read_write $O --threads=2 prepare
  assert_eq "$db sysbench 1.0.20 prepare exit 0" 0 "$RC"
  n=$(if [ $db = mysql ]; then mysql_q "SELECT COUNT(*) FROM sbtest2"; else pgsql_q "SELECT COUNT(*) FROM sbtest2"; fi)
  assert_eq "$db sysbench 1.0.20 prepare rows" 500 "$n"
  for spec in oltp_read_write:1400/400/200 oltp_read_only:1400/0/200 oltp_write_only:0/400/200 \
              oltp_point_select:100/0/0 oltp_update_index:0/100/0 oltp_update_non_index:0/100/0; do
    s=${spec%%:*}
    run_bmk "$s" $O --events=100 run
    mix="$(report_value "read:" "$OUT")/$(report_value "write:" "$OUT")/$(report_value "other:" "$OUT")"
    assert_eq "$db sysbench 1.0.20 $s runs on bmk with its query mix" "${spec#*:}" "$mix"
  done
  run_bmk oltp_read_write $O cleanup
  assert_eq "$db sysbench 1.0.20 cleanup exit 0" 0 "$RC"
done

finish

# Helpers of the tpcc integration tests (sourced after lib.sh).

# q DB SQL [database / schema]: SQL through the stock clients; fields
# separated by one space (MariaDB: a tab).
q() {
  if [ "$1" = mysql ]; then
    MYSQL_PWD=$DBPASS mariadb --protocol=tcp -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -N -B "${3:-sbtest}" -e "$2" 2>&1
  else
    PGOPTIONS="-c search_path=${3:-public}" PGPASSWORD=$DBPASS psql -h 127.0.0.1 \
      -p "$PGSQL_PORT" -U sbtest -d sbtest -At -F ' ' -c "$2" 2>&1
  fi
}

opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }

# kit_home DB DIR NAME...: a kit home in DIR whose .bench points at the
# sandbox server of DB, with the scripts NAME... generated.
kit_home() {
  local db=$1 k=$2
  shift 2
  mkdir -p "$k/sb_exec"
  ln -sfn "$TOP/BMK/sb_exec/lua" "$k/sb_exec/lua"
  if [ "$db" = mysql ]; then
    printf 'driver=mysql\nhost=127.0.0.1\nport=%s\nuser=sbtest\npass=%s\ndb=sbtest\n' "$MYSQL_PORT" "$DBPASS" > "$k/.bench"
  else
    printf 'driver=pgsql\npg_host=127.0.0.1\npg_port=%s\npg_user=sbtest\npg_pass=%s\npg_db=sbtest\n' "$PGSQL_PORT" "$DBPASS" > "$k/.bench"
  fi
  printf 'sb11=%s\nTMP_DIR=%s\n' "$BMK" "$WORK" >> "$k/.bench"
  BMK_HOME=$k "$BMK" kit generate --home="$k" "$@" >/dev/null
}

# schema_facts DB NAME: "<secondary indexes> <foreign keys> <ol_delivery_d
# nullable>" of the tpcc tables of set 1 in database / schema NAME
# (partition children not counted).
schema_facts() {
  if [ "$1" = mysql ]; then
    q mysql "SELECT (SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema='$2' AND table_name LIKE '%1' AND index_name <> 'PRIMARY'), (SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_schema='$2' AND constraint_type='FOREIGN KEY' AND table_name LIKE '%1'), (SELECT is_nullable FROM information_schema.columns WHERE table_schema='$2' AND table_name='order_line1' AND column_name='ol_delivery_d')" | tr '\t' ' '
  else
    q pgsql "SELECT (SELECT COUNT(*) FROM pg_indexes WHERE schemaname='$2' AND indexname NOT LIKE '%pkey' AND tablename LIKE '%1'), (SELECT COUNT(*) FROM pg_constraint WHERE contype='f' AND connamespace='$2'::regnamespace AND conrelid::regclass::text LIKE '%1'), (SELECT is_nullable FROM information_schema.columns WHERE table_schema='$2' AND table_name='order_line1' AND column_name='ol_delivery_d')"
  fi
}

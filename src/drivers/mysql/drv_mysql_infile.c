/*
 * MySQL driver: fast load with LOAD DATA LOCAL INFILE fed from memory
 * through the client library's local-infile callbacks
 * (mysql_set_local_infile_handler); see db_driver.h "Fast load".
 *
 * The client library pulls a statement's data while the statement runs,
 * so each load_send is one complete LOAD DATA statement over the rows the
 * generic layer gathered (load_chunk_bytes). The callbacks serve only
 * that memory: a LOAD DATA LOCAL request that bmk did not start (a
 * server asking for a client file) is refused.
 *
 * The server must allow it (local_infile=1, MariaDB's default); a refusal
 * gets a message naming the setting. Every handle declares the capability
 * (MYSQL_OPT_LOCAL_INFILE), since it can only be set before connecting.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <errmsg.h>

#include "drivers/db_driver.h"
#include "drv_mysql.h"

/* Local-infile callbacks; `userdata` / `ptr` is the my_conn_t. */
static int infile_init(void **ptr, const char *filename, void *userdata)
{
  (void) filename;
  my_conn_t *mc = userdata;
  *ptr = mc;
  return mc->load_data == NULL ? 1 : 0;
}

static int infile_read(void *ptr, char *buf, unsigned int buf_len)
{
  my_conn_t *mc = ptr;
  size_t left = mc->load_len - mc->load_pos;
  size_t n = left < buf_len ? left : buf_len;
  memcpy(buf, mc->load_data + mc->load_pos, n);
  mc->load_pos += n;
  return (int) n;
}

static void infile_end(void *ptr)
{
  (void) ptr;
}

static int infile_error(void *ptr, char *msg, unsigned int len)
{
  (void) ptr;
  snprintf(msg, len, "bmk serves LOAD DATA LOCAL INFILE only for its own loads; "
           "the server asked for a client file");
  return CR_UNKNOWN_ERROR;
}

void mydrv_infile_setup(MYSQL *m, my_conn_t *mc)
{
  unsigned int on = 1;
  mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &on);
  mysql_set_local_infile_handler(m, infile_init, infile_read, infile_end, infile_error, mc);
}

int mydrv_load_start(db_conn_t *con, const char *table, const char *cols)
{
  my_conn_t *mc = con->ptr;
  const char *cs = mc->mysql ? mysql_character_set_name(mc->mysql) : "utf8mb4";
  size_t n = strlen(table) + strlen(cols) + strlen(cs) + 192;
  free(mc->load_sql);
  mc->load_sql = malloc(n);
  if (mc->load_sql == NULL)
  {
    db_set_error(con, DB_ERROR_FATAL, 0, NULL, "out of memory", "mysql_drv_load", "", 0);
    return 1;
  }
  /* The format of db_load.c spelled out (hex literals, so sql_mode
     NO_BACKSLASH_ESCAPES changes nothing), in the connection's character
     set as an INSERT's text would be. */
  mc->load_sql_len = (size_t) snprintf(mc->load_sql, n,
    "LOAD DATA LOCAL INFILE 'bmk-load' INTO TABLE %s CHARACTER SET %s "
    "FIELDS TERMINATED BY 0x09 ENCLOSED BY '' ESCAPED BY 0x5c "
    "LINES TERMINATED BY 0x0a STARTING BY '' (%s)", table, cs, cols);
  return 0;
}

/* Adds what to do to the server's refusal of LOAD DATA LOCAL. */
static void explain_refusal(db_conn_t *con)
{
  int e = con->err.sql_errno;
  /* 1148 ER_NOT_ALLOWED_COMMAND, 4166 MariaDB's capability disabled,
     3948 MySQL 8's local files disabled, 2068 its client-side refusal */
  if (e != 1148 && e != 4166 && e != 3948 && e != 2068)
    return;
  /* db_set_error replaces the strings: pass copies */
  char msg[1024], state[6];
  snprintf(msg, sizeof(msg), "%s (LOAD DATA LOCAL INFILE is refused: the server needs "
           "local_infile=1, e.g. SET GLOBAL local_infile=1 or local-infile=1 in its "
           "configuration; or use another load method)", con->err.msg ? con->err.msg : "");
  snprintf(state, sizeof(state), "%s", con->err.sql_state);
  my_conn_t *mc = con->ptr;
  bool lost = con->lost;
  db_set_error(con, con->error, e, state, msg, con->err.api, mc->load_sql, mc->load_sql_len);
  con->lost = lost;
}

int mydrv_load_send(db_conn_t *con, const char *data, size_t len, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  if (mydrv_dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    return 1;
  }
  mc->last_stmt = NULL;
  /* non-NULL while our statement runs: infile_init serves it */
  mc->load_data = data ? data : "";
  mc->load_len = len;
  mc->load_pos = 0;
  int err = mysql_real_query(mc->mysql, mc->load_sql, (unsigned long) mc->load_sql_len);
  MY_TRACE("mysql_real_query(%p, \"%s\", %zu) = %d (%zu bytes of rows)", (void *) mc->mysql,
           mc->load_sql, mc->load_sql_len, err, len);
  mc->load_data = NULL;
  if (err != 0)
  {
    mydrv_conn_failed(con, "mysql_drv_query", mc->load_sql, mc->load_sql_len);
    explain_refusal(con);
    return -1;
  }
  if (mydrv_text_result(con, mysql_store_result(mc->mysql), rs) != 0)
    return -1;
  return 1;
}

int mydrv_load_end(db_conn_t *con, db_result_t *rs)
{
  (void) rs;
  mydrv_load_abort(con);
  return 0;
}

void mydrv_load_abort(db_conn_t *con)
{
  my_conn_t *mc = con->ptr;
  if (mc == NULL)
    return;
  free(mc->load_sql);
  mc->load_sql = NULL;
  mc->load_data = NULL;
}

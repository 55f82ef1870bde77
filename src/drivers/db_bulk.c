/* Bulk insert: multi-row INSERTs in a 524,288-byte buffer
   (as sysbench's src/db_driver.c); see db_driver.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/db_driver.h"
#include "drivers/db_driver_priv.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"

#define BULK_BUFFER_SIZE 524288

/* ---- bulk insert -------------------------------------------------------- */

int db_bulk_insert_init(db_conn_t *con, const char *prefix, size_t len)
{
  if (!db_usable(con))
    return 1;
  if (len + 1 > BULK_BUFFER_SIZE)
  {
    log_text(LOG_FATAL, "Query length exceeds the maximum value (%u), aborting",
             BULK_BUFFER_SIZE);
    return 1;
  }
  if (con->bulk_buf == NULL)
  {
    con->bulk_buf = malloc(BULK_BUFFER_SIZE);
    con->bulk_cap = BULK_BUFFER_SIZE;
  }
  memcpy(con->bulk_buf, prefix, len);
  con->bulk_prefix_len = con->bulk_len = len;
  con->bulk_values = 0;
  con->bulk_active = true;
  return 0;
}

static int bulk_flush(db_conn_t *con)
{
  if (con->bulk_values == 0)
    return 0;
  db_result_t *rs = db_query(con, con->bulk_buf, con->bulk_len);
  con->bulk_len = con->bulk_prefix_len;
  con->bulk_values = 0;
  return rs == NULL ? 1 : 0;
}

int db_bulk_insert_next(db_conn_t *con, const char *row, size_t len)
{
  if (con == NULL || !con->bulk_active)
  {
    log_text(LOG_ALERT, "attempt to call bulk_insert_next() before bulk_insert_init()");
    if (con)
      con->error = DB_ERROR_NONE;
    return 1;
  }
  if (!db_usable(con))
    return 1;
  if (con->bulk_prefix_len + len + 1 > con->bulk_cap)
  {
    log_text(LOG_FATAL, "Query length exceeds the maximum value (%u), aborting",
             BULK_BUFFER_SIZE);
    con->error = DB_ERROR_NONE;
    return 1;
  }
  if (con->bulk_len + len + 1 > con->bulk_cap && bulk_flush(con) != 0)
    return 1;
  if (con->bulk_values > 0)
    con->bulk_buf[con->bulk_len++] = ',';
  memcpy(con->bulk_buf + con->bulk_len, row, len);
  con->bulk_len += len;
  con->bulk_values++;
  return 0;
}

int db_bulk_insert_done(db_conn_t *con)
{
  if (con == NULL || !con->bulk_active)
    return 0;
  int rc = bulk_flush(con);
  con->bulk_active = false;
  return rc;
}


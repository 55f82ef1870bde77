/* --max-tries in the --results document; see results/sb_results_retry.h. */
#include "results/sb_results_retry.h"

void sb_results_retry_interval(json_t *row, const sb_stat_t *st)
{
  if (!st->retries_on)
    return;
  json_object_set_new(row, "retries", json_integer((json_int_t) st->tx_retries));
  json_object_set_new(row, "failures", json_integer((json_int_t) st->tx_failures));
}

/* {retried, retries, failures} of `c`. */
static json_t *counts_json(const sb_retry_counts_t *c)
{
  return json_pack("{s:I,s:I,s:I}", "retried", (json_int_t) c->n[SB_RETRY_RETRIED],
                   "retries", (json_int_t) c->n[SB_RETRY_RETRIES],
                   "failures", (json_int_t) c->n[SB_RETRY_FAILURES]);
}

json_t *sb_results_retry_json(const sb_stat_t *st)
{
  if (!st->retries_on)
    return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "max_tries", st->max_tries > 0 ? json_integer(st->max_tries)
                                                        : json_null());
  const sb_retry_snap_t *r = st->retry;
  json_object_set_new(o, "retried", json_integer(r ? (json_int_t) r->total.n[SB_RETRY_RETRIED]
                                                   : 0));
  json_object_set_new(o, "retries", json_integer((json_int_t) st->tx_retries));
  json_object_set_new(o, "failures", json_integer((json_int_t) st->tx_failures));
  json_t *kinds = json_object(), *codes = json_object();
  for (int k = 0; r != NULL && k < SB_RETRY_KINDS; k++)
    json_object_set_new(kinds, sb_retry_kind_name((sb_retry_kind_t) k),
                        counts_json(&r->by_kind[k]));
  for (unsigned i = 0; r != NULL && i < r->ncodes; i++)
  {
    json_t *c = counts_json(&r->by_code[i]);
    json_object_set_new(c, "kind", json_string(sb_retry_kind_name(r->kind[i])));
    json_object_set_new(codes, r->code[i], c);
  }
  json_object_set_new(o, "by_kind", kinds);
  json_object_set_new(o, "by_code", codes);
  return o;
}

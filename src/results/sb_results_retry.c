/* --max-tries in the --results document; see results/sb_results_retry.h. */
#include <stdio.h>
#include <string.h>

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

/* A non-negative integer member of `o`, 0 when missing. */
static uint64_t count_of(const json_t *o, const char *key)
{
  json_int_t v = json_integer_value(json_object_get(o, key));
  return v > 0 ? (uint64_t) v : 0;
}

static void read_counts(sb_retry_counts_t *c, const json_t *o)
{
  c->n[SB_RETRY_RETRIED] = count_of(o, "retried");
  c->n[SB_RETRY_RETRIES] = count_of(o, "retries");
  c->n[SB_RETRY_FAILURES] = count_of(o, "failures");
}

void sb_results_retry_read(sb_stat_t *st, sb_retry_snap_t *snap, const json_t *o)
{
  memset(snap, 0, sizeof(*snap));
  if (!json_is_object(o))
    return;
  st->retries_on = true;
  st->max_tries = (unsigned) count_of(o, "max_tries");
  st->tx_retries = count_of(o, "retries");
  st->tx_failures = count_of(o, "failures");
  read_counts(&snap->total, o);
  const char *key;
  json_t *v;
  for (int k = 0; k < SB_RETRY_KINDS; k++)
    read_counts(&snap->by_kind[k], json_object_get(json_object_get(o, "by_kind"),
                                                   sb_retry_kind_name((sb_retry_kind_t) k)));
  json_object_foreach(json_object_get(o, "by_code"), key, v)
  {
    if (snap->ncodes == SB_RETRY_CODES)
      break;
    unsigned i = snap->ncodes++;
    snprintf(snap->code[i], sizeof(snap->code[i]), "%s", key);
    snap->kind[i] = sb_retry_kind_of(key);
    read_counts(&snap->by_code[i], v);
  }
  st->retry = snap;
}

void sb_results_retry_read_interval(sb_stat_t *st, const json_t *row)
{
  if (json_object_get(row, "retries") == NULL)
    return;
  st->retries_on = true;
  st->tx_retries = count_of(row, "retries");
  st->tx_failures = count_of(row, "failures");
}

/* Adds the retried/retries/failures members of `o` to those of `acc`
   (the members `o` has). */
static void add_counts(json_t *acc, const json_t *o)
{
  static const char *const keys[] = { "retried", "retries", "failures" };
  for (int k = 0; k < 3; k++)
    if (json_is_integer(json_object_get(o, keys[k])))
      json_object_set_new(acc, keys[k], json_integer((json_int_t) (count_of(acc, keys[k]) +
                                                                   count_of(o, keys[k]))));
}

/* The same for each member object of `o[key]` into `acc[key]`. */
static void add_groups(json_t *acc, const json_t *o, const char *key)
{
  const json_t *from = json_object_get(o, key);
  if (!json_is_object(from))
    return;
  json_t *to = json_object_get(acc, key);
  if (to == NULL)
    json_object_set_new(acc, key, to = json_object());
  const char *name;
  json_t *v;
  json_object_foreach((json_t *) from, name, v)
  {
    json_t *g = json_object_get(to, name);
    if (g == NULL)
    {
      json_object_set_new(to, name, g = json_object());
      if (json_is_string(json_object_get(v, "kind")))
        json_object_set(g, "kind", json_object_get(v, "kind"));
    }
    add_counts(g, v);
  }
}

json_t *sb_results_retry_merge(json_t *acc, const json_t *o)
{
  if (!json_is_object(o) || json_object_get(o, "retries") == NULL)
    return acc;
  bool first = acc == NULL;
  if (first)
    acc = json_object();
  const json_t *mt = json_object_get(o, "max_tries");
  if (mt != NULL)
  {
    const json_t *had = json_object_get(acc, "max_tries");
    if (first || json_is_null(mt) || (json_is_integer(had) &&
                                      json_integer_value(mt) > json_integer_value(had)))
      json_object_set(acc, "max_tries", (json_t *) mt);
  }
  add_counts(acc, o);
  add_groups(acc, o, "by_kind");
  add_groups(acc, o, "by_code");
  return acc;
}

void sb_results_retry_interval_from(json_t *row, const json_t *acc)
{
  json_object_set_new(row, "retries", json_integer((json_int_t) count_of(acc, "retries")));
  json_object_set_new(row, "failures", json_integer((json_int_t) count_of(acc, "failures")));
}

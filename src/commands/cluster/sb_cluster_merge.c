/* `bmk cluster run`'s exact merge; see results/sb_cluster_merge.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "core/sb_figure.h"
#include "core/sb_logger.h"
#include "commands/cluster/sb_cluster_merge.h"
#include "commands/cluster/sb_cluster_merge_priv.h"
#include "commands/cluster/sb_cluster_pack.h"
#include "results/sb_hdrlog.h"
#include "results/sb_report.h"
#include "results/sb_results_file.h"


static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

void sb_cluster_merge_set_t0(sb_cluster_merge_t *m, double t0_epoch)
{
  m->t0 = t0_epoch;
}

int sb_cluster_parse(const char *line, sb_cluster_msg_t *m, char *err, size_t errlen)
{
  memset(m, 0, sizeof(*m));
  if (strncmp(line, "bmkc ", 5) != 0)
    return 0;
  const char *s = line + 5;
  int n = 0;
  char hist[8];
  char layout[16] = "";
  if (sscanf(s, "ready %u %ld %63s %15s", &m->index, &m->pid, m->version, layout) >= 3)
  {
    m->generic = strcmp(layout, "generic") == 0;
    m->kind = SB_CL_READY;
    return 1;
  }
  if (strncmp(s, "note ", 5) == 0)
  {
    const char *k = s + 5, *sp = strchr(k, ' ');
    if (sp == NULL || sp == k || (size_t) (sp - k) >= sizeof(m->note_key) ||
        strlen(sp + 1) >= sizeof(m->note_value))
    {
      snprintf(err, errlen, "unreadable stream line: %.60s", line);
      return -1;
    }
    memcpy(m->note_key, k, (size_t) (sp - k));
    m->note_key[sp - k] = '\0';
    snprintf(m->note_value, sizeof(m->note_value), "%s", sp + 1);
    m->kind = SB_CL_NOTE;
    return 1;
  }
  if (strncmp(s, "doc ", 4) == 0)
  {
    char why[160];
    m->doc = sb_cluster_unpack(s + 4, why, sizeof(why));
    if (m->doc == NULL)
    {
      snprintf(err, errlen, "unreadable document on the stream: %s", why);
      return -1;
    }
    m->kind = SB_CL_DOC;
    return 1;
  }
  if (strcmp(s, "hb") == 0)
  {
    m->kind = SB_CL_HB;
    return 1;
  }
  if (sscanf(s, "pong %" SCNu64, &m->pong_us) == 1)
  {
    m->kind = SB_CL_PONG;
    return 1;
  }
  const char *h = NULL;
  if (sscanf(s, "iv %lld %lf %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
             " %" SCNu64 " %" SCNu64 " %7s%n", &m->k, &m->len_s, &m->running, &m->c.events,
             &m->c.reads, &m->c.writes, &m->c.other, &m->c.errors, &m->c.reconnects, &m->c.late,
             hist, &n) == 11)
  {
    m->kind = SB_CL_IV;
    h = s + n - strlen(hist);
  }
  else if (sscanf(s, "end %lf %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                  " %" SCNu64 " %" SCNu64 " %lf %lf %lf %d %7s%n", &m->time_s, &m->c.events,
                  &m->c.reads, &m->c.writes, &m->c.other, &m->c.errors, &m->c.reconnects,
                  &m->c.late, &m->min_s, &m->max_s, &m->sum_s, &m->exit_code, hist, &n) == 13)
  {
    m->kind = SB_CL_END;
    h = s + n - strlen(hist);
  }
  else
  {
    snprintf(err, errlen, "unreadable stream line: %.60s", line);
    return -1;
  }
  m->hist = sb_hdr_new();
  if (m->hist == NULL || sb_hdr_decode_v2_base64(h, m->hist, err, errlen) != 0)
  {
    sb_hdr_free(m->hist);
    m->hist = NULL;
    return -1;
  }
  return 1;
}

void sb_cluster_msg_free(sb_cluster_msg_t *m)
{
  sb_hdr_free(m->hist);
  m->hist = NULL;
  json_decref(m->doc);
  m->doc = NULL;
}

sb_cluster_merge_t *sb_cluster_merge_new(const sb_cluster_merge_cfg_t *cfg)
{
  sb_cluster_merge_t *m = calloc(1, sizeof(*m));
  if (m == NULL)
    return NULL;
  m->cfg = *cfg;
  m->p = calloc(cfg->nprocs, sizeof(*m->p));
  if (m->p == NULL)
  {
    free(m);
    return NULL;
  }
  for (unsigned i = 0; i < cfg->nprocs; i++)
    m->p[i].lost_at_s = -1;
  m->next_k = 1;
  return m;
}

void sb_cluster_merge_free(sb_cluster_merge_t *m)
{
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->niv; i++)
  {
    sb_hdr_free(m->iv[i].h);
    for (unsigned p = 0; m->iv[i].phist && p < m->cfg.nprocs; p++)
      free(m->iv[i].phist[p]);
    free(m->iv[i].phist);
  }
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
  {
    sb_hdr_free(m->p[p].h);
    json_decref(m->p[p].notes);
    json_decref(m->p[p].doc);
  }
  json_decref(m->doc);
  free(m->iv);
  free(m->p);
  free(m);
}

static void add_counts(sb_cluster_counts_t *a, const sb_cluster_counts_t *b)
{
  a->events += b->events;
  a->reads += b->reads;
  a->writes += b->writes;
  a->other += b->other;
  a->errors += b->errors;
  a->reconnects += b->reconnects;
  a->late += b->late;
}

/* The interval k's slot (grown as needed), NULL on OOM. */
static cl_iv_t *iv_slot(sb_cluster_merge_t *m, long long k)
{
  if ((size_t) k > m->niv)
  {
    size_t n = (size_t) k + 16;
    cl_iv_t *iv = realloc(m->iv, n * sizeof(*iv));
    if (iv == NULL)
      return NULL;
    memset(iv + m->niv, 0, (n - m->niv) * sizeof(*iv));
    m->iv = iv;
    m->niv = n;
  }
  cl_iv_t *v = &m->iv[k - 1];
  if (v->h == NULL)
  {
    v->h = sb_hdr_new();
    v->phist = calloc(m->cfg.nprocs, sizeof(char *));
    if (v->h == NULL || v->phist == NULL)
      return NULL;
  }
  return v;
}

/* A stat for the report layouts from counts over `len_s` and `h`. */
static void fill_stat(const sb_cluster_merge_t *m, sb_stat_t *st, const sb_cluster_counts_t *c,
                      double len_s, const sb_hdr_t *h)
{
  memset(st, 0, sizeof(*st));
  st->threads = m->cfg.threads * m->cfg.nprocs;
  st->time_interval = len_s;
  st->percentile = m->cfg.percentile;
  st->events = c->events;
  st->reads = c->reads;
  st->writes = c->writes;
  st->other = c->other;
  st->errors = c->errors;
  st->reconnects = c->reconnects;
  if (m->cfg.percentile > 0)
    st->latency_pct = (double) sb_hdr_percentile(h, m->cfg.percentile) / 1e9;
}

static void print_verbose(const sb_cluster_merge_t *m, FILE *out, unsigned p, const sb_cluster_msg_t *msg)
{
  double t = msg->len_s > 0 ? msg->len_s : 1;
  fprintf(out, "    [ %.0fs ] %s: thds: %u tps: %.2f qps: %.2f lat (ms,%u%%): %.2f\n",
          (double) msg->k * m->cfg.interval_s, m->cfg.names[p], msg->running,
          (double) msg->c.events / t,
          (double) (msg->c.reads + msg->c.writes + msg->c.other) / t, m->cfg.percentile,
          m->cfg.percentile ? (double) sb_hdr_percentile(msg->hist, m->cfg.percentile) / 1e6 : 0);
}

int sb_cluster_merge_add(sb_cluster_merge_t *m, unsigned p, sb_cluster_msg_t *msg)
{
  cl_proc_t *pr = &m->p[p];
  if (msg->kind == SB_CL_DOC)
  {
    json_decref(pr->doc);
    pr->doc = msg->doc;
    msg->doc = NULL;
    return 0;
  }
  if (msg->kind == SB_CL_NOTE)
  {
    if (pr->notes == NULL && (pr->notes = json_object()) == NULL)
      return -1;
    json_t *a = json_object_get(pr->notes, msg->note_key);
    if (a == NULL && json_object_set_new(pr->notes, msg->note_key, a = json_array()) != 0)
      return -1;
    json_t *v = json_string(msg->note_value);
    return v == NULL ? 0 : json_array_append_new(a, v) == 0 ? 0 : -1; /* not UTF-8: dropped */
  }
  if (msg->kind == SB_CL_END)
  {
    pr->has_end = true;
    pr->c = msg->c;
    pr->time_s = msg->time_s;
    pr->min_s = msg->min_s;
    pr->max_s = msg->max_s;
    pr->sum_s = msg->sum_s;
    pr->exit_code = msg->exit_code;
    sb_hdr_free(pr->h);
    pr->h = msg->hist;
    msg->hist = NULL;
    return 0;
  }
  if (msg->kind != SB_CL_IV || msg->k < 1 || msg->k < m->next_k)
    return 0;                  /* an interval already printed: late */
  cl_iv_t *v = iv_slot(m, msg->k);
  if (v == NULL)
    return -1;
  add_counts(&v->c, &msg->c);
  v->running += msg->running;
  if (v->phist[p] == NULL)
    v->nproc++;                /* processes, not messages */
  if (msg->len_s > v->len_s)
    v->len_s = msg->len_s;
  sb_hdr_add(v->h, msg->hist);
  free(v->phist[p]);
  v->phist[p] = sb_hdr_encode_v2_base64(msg->hist);
  if (msg->k > pr->last_k)
    pr->last_k = msg->k;
  if (m->cfg.verbose && m->cfg.print_intervals)
    print_verbose(m, stdout, p, msg);
  return 0;
}

void sb_cluster_merge_finish(sb_cluster_merge_t *m, unsigned p, double lost_at_s, const char *why)
{
  m->p[p].finished = true;
  m->p[p].lost_at_s = lost_at_s;
  snprintf(m->p[p].why, sizeof(m->p[p].why), "%s", why ? why : "");
}

/* Whether every process still delivering has delivered interval k. */
static bool complete(const sb_cluster_merge_t *m, long long k)
{
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
    if (!m->p[p].finished && m->p[p].last_k < k)
      return false;
  return true;
}

/* The observer's interval: the merged numbers of interval v (its line's). */
static void tell_interval(const sb_cluster_merge_t *m, const sb_stat_t *st, const cl_iv_t *v)
{
  const sb_output_t *o = m->cfg.observer;
  if (o == NULL || o->interval == NULL)
    return;
  sb_out_interval_t iv = { .st = st, .hist = v->h, .types = NULL,
                           .start_s = st->time_total - v->len_s, .late = v->c.late,
                           .vus_running = v->running };
  o->interval(o->ctx, &iv);
}

/* The observer's end: the merged run's figures published as this
   process's own (the merged document's summary.figures, as counts for
   the per-minute ones), then the merged end. */
static void tell_end(sb_cluster_merge_t *m, const sb_stat_t *st, const sb_hdr_t *h,
                     unsigned nend)
{
  const sb_output_t *o = m->cfg.observer;
  if (o == NULL || o->end == NULL)
    return;
  const json_t *figs = sb_json_at(sb_cluster_merge_document(m), "summary", "figures", NULL);
  const char *name;
  json_t *f;
  json_object_foreach((json_t *) figs, name, f)
  {
    bool per_minute = json_is_true(json_object_get(f, "per_minute"));
    const char *scope = sb_json_str(f, "scope", NULL);
    double v = sb_json_num(f, per_minute ? "count" : "value", NULL);
    if (!isnan(v))
      sb_figure_set(name, sb_json_str(f, "help", NULL),
                    (per_minute ? SB_FIGURE_PER_MINUTE : 0) |
                    (scope && strcmp(scope, "server") == 0 ? SB_FIGURE_SERVER : 0), v);
  }
  sb_out_end_t e = { .st = st, .hist = h, .exit_code = nend == m->cfg.nprocs ? 0 : 1 };
  o->end(o->ctx, &e);
}

void sb_cluster_merge_flush(sb_cluster_merge_t *m, FILE *out, bool all)
{
  while ((size_t) m->next_k <= m->niv && (all || complete(m, m->next_k)))
  {
    cl_iv_t *v = &m->iv[m->next_k - 1];
    m->next_k++;
    if (v->h == NULL || v->nproc == 0)
      continue;
    v->printed = true;
    if (m->t0 > 0 && !all)
    {
      double d = wall_now() - (m->t0 + (double) (m->next_k - 1) * m->cfg.interval_s);
      m->nmerged++;
      m->delay_sum += d;
      if (d > m->delay_max)
        m->delay_max = d;
    }
    sb_stat_t st;
    fill_stat(m, &st, &v->c, v->len_s, v->h);
    st.time_total = (double) (m->next_k - 1) * m->cfg.interval_s;
    st.threads_running = v->running;
    tell_interval(m, &st, v);
    if (!m->cfg.print_intervals)
      continue;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
      continue;
    if (m->cfg.generic)
      sb_report_interval_generic(mem, &st, false, false);
    else
      sb_report_interval_db(mem, &st, false, false);
    fclose(mem);
    if (len > 0 && buf[len - 1] == '\n')
      buf[--len] = '\0';
    fprintf(out, "%s procs: %u/%u\n", buf, v->nproc, m->cfg.nprocs);
    free(buf);
  }
  fflush(out);
}

/* The merged end: counts, histogram, latency min/max/sum, longest time;
   *nend processes with an end message. The histogram is the caller's. */
sb_hdr_t *sb_cluster_merged_end(const sb_cluster_merge_t *m, sb_cluster_counts_t *c, double *time_s,
                            double *min_s, double *max_s, double *sum_s, unsigned *nend)
{
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return NULL;
  memset(c, 0, sizeof(*c));
  *time_s = *max_s = *sum_s = 0;
  *min_s = -1;
  *nend = 0;
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
  {
    const cl_proc_t *pr = &m->p[p];
    if (!pr->has_end)
      continue;
    (*nend)++;
    add_counts(c, &pr->c);
    sb_hdr_add(h, pr->h);
    if (pr->time_s > *time_s)
      *time_s = pr->time_s;
    if (pr->c.events > 0 && (*min_s < 0 || pr->min_s < *min_s))
      *min_s = pr->min_s;
    if (pr->max_s > *max_s)
      *max_s = pr->max_s;
    *sum_s += pr->sum_s;
  }
  if (*min_s < 0)
    *min_s = 0;
  return h;
}

static void print_procs(const sb_cluster_merge_t *m, FILE *out)
{
  fprintf(out, "Processes:\n");
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
  {
    const cl_proc_t *pr = &m->p[p];
    fprintf(out, "    %-16s ", m->cfg.names[p]);
    if (pr->has_end)
      fprintf(out, "events: %" PRIu64 " tps: %.2f lat (ms,%u%%): %.2f exit: %d\n",
              pr->c.events, pr->time_s > 0 ? (double) pr->c.events / pr->time_s : 0,
              m->cfg.percentile,
              m->cfg.percentile ? (double) sb_hdr_percentile(pr->h, m->cfg.percentile) / 1e6 : 0,
              pr->exit_code);
    else if (pr->lost_at_s >= 0)
      fprintf(out, "lost at %.0f s (%s): not in the summary\n", pr->lost_at_s, pr->why);
    else
      fprintf(out, "no end (%s): not in the summary\n", pr->why[0] ? pr->why : "stopped");
  }
  fprintf(out, "\n");
}

void sb_cluster_merge_report(sb_cluster_merge_t *m, FILE *out)
{
  sb_cluster_counts_t c;
  double time_s, min_s, max_s, sum_s;
  unsigned nend;
  sb_hdr_t *h = sb_cluster_merged_end(m, &c, &time_s, &min_s, &max_s, &sum_s, &nend);
  if (h == NULL)
    return;
  sb_stat_t st;
  fill_stat(m, &st, &c, time_s, h);
  st.time_total = time_s;
  st.latency_min = min_s;
  st.latency_max = max_s;
  st.latency_sum = sum_s;
  st.latency_avg = c.events ? sum_s / (double) c.events : 0;
  /* fairness over the processes' VUs: events and execution time per VU */
  unsigned vus = m->cfg.threads * (nend ? nend : 1);
  st.events_avg = (double) c.events / vus;
  st.exec_avg = sum_s / vus;
  double ve = 0, vx = 0;
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
    if (m->p[p].has_end)
    {
      double de = (double) m->p[p].c.events / m->cfg.threads - st.events_avg;
      double dx = m->p[p].sum_s / m->cfg.threads - st.exec_avg;
      ve += de * de;
      vx += dx * dx;
    }
  st.events_stddev = nend ? sqrt(ve / nend) : 0;
  st.exec_stddev = nend ? sqrt(vx / nend) : 0;
  fprintf(out, "\nCluster: %u of %u processes in the summary (exact merge of their "
          "counters and latency histograms)\n\n", nend, m->cfg.nprocs);
  sb_report_cumulative(out, &st, !m->cfg.generic);
  sb_cluster_doc_report(m, out);
  tell_end(m, &st, h, nend);
  print_procs(m, out);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
               (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  fprintf(out, "Coordinator: %u intervals merged live, line after the interval's end: "
          "avg %.1f ms, max %.1f ms; CPU %.3f s (%.2f ms per interval)\n\n", m->nmerged,
          m->nmerged ? m->delay_sum / m->nmerged * 1e3 : 0, m->delay_max * 1e3, cpu,
          m->nmerged ? cpu / m->nmerged * 1e3 : 0);
  sb_hdr_free(h);
  fflush(out);
}


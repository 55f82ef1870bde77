/* Program name and version strings; see sb_version.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <luajit.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_logger.h"
#include "core/sb_version.h"

#ifndef SB_COMPAT_VERSION
#define SB_COMPAT_VERSION "1.1.0"
#endif
#ifndef BMK_GIT_SHA
#define BMK_GIT_SHA ""
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.0.0"
#endif

static char progname[256] = "bmk";
static char version_string[512];

void sb_set_progname(const char *argv0)
{
  const char *base = argv0 ? strrchr(argv0, '/') : NULL;
  base = base ? base + 1 : argv0;
  if (base && *base)
    snprintf(progname, sizeof(progname), "%s", base);
  if (BMK_GIT_SHA[0])
    snprintf(version_string, sizeof(version_string), "%s %s-%s", progname,
             SB_COMPAT_VERSION, BMK_GIT_SHA);
  else
    snprintf(version_string, sizeof(version_string), "%s %s", progname,
             SB_COMPAT_VERSION);
}

const char *sb_progname(void)
{
  return progname;
}

bool sb_persona_sysbench(void)
{
  return strcmp(progname, "sysbench") == 0;
}

const char *sb_compat_version(void)
{
  return SB_COMPAT_VERSION;
}

const char *sb_version_string(void)
{
  if (!version_string[0])
    sb_set_progname(progname);
  return version_string;
}

const char *sb_bmk_release(void)
{
  return PACKAGE_VERSION;
}

void sb_print_header(void)
{
  /* LUAJIT_VERSION is the linked library's version text ("LuaJIT 2.1.0-beta3"). */
  const char *lj = LUAJIT_VERSION;
  if (strncmp(lj, "LuaJIT ", 7) == 0)
    lj += 7;
  log_text(LOG_NOTICE, "%s (using system LuaJIT %s)\n", sb_version_string(), lj);
}

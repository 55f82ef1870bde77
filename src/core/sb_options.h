/*
 * Option registry and command-line / config-file parsing, with sysbench
 * 1.1's syntax (src/sb_options.c).
 *
 * Every option (general, driver, built-in test, script) is registered with
 * a name, description, default (text) and type. Values given on the command
 * line or in --config-file are kept as raw text until the option is
 * registered, then validated; precedence is command line > config file >
 * default, whatever the order of registration. Names compare equal with '-'
 * and '_'; they are stored with '_' (what Lua sees).
 *
 * Not thread-safe for writes: register and parse in the main thread before
 * workers start. Getters are safe to call from any thread afterwards.
 */
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sysbench's sb_arg_type_t (SB_ARG_TYPE_*), exported to Lua. */
typedef enum {
  SB_ARG_TYPE_NULL = 0,
  SB_ARG_TYPE_BOOL,
  SB_ARG_TYPE_INT,
  SB_ARG_TYPE_SIZE,
  SB_ARG_TYPE_DOUBLE,
  SB_ARG_TYPE_STRING,
  SB_ARG_TYPE_LIST,
  SB_ARG_TYPE_FILE,
  SB_ARG_TYPE_MAX
} sb_arg_type_t;

/* A static option definition (tables end with an entry whose name is NULL). */
typedef struct {
  const char *name;        /* as declared (dashes or underscores) */
  const char *desc;
  const char *value;       /* default as text; NULL = no default */
  sb_arg_type_t type;
} sb_option_t;

/* Where an option's current value came from. */
typedef enum {
  SB_SRC_DEFAULT = 0,
  SB_SRC_CONFIG,
  SB_SRC_CMDLINE,
  SB_SRC_SET                /* set by the program (e.g. alias copies) */
} sb_opt_source_t;

typedef struct sb_opt {
  char *name;              /* normalised: '_' */
  char *display_name;      /* as declared, for help */
  char *desc;
  char *def;               /* default text, NULL if none */
  sb_arg_type_t type;
  char **list;             /* current value split (LIST), or 1 item */
  unsigned nlist;
  char *value;             /* current value text (NULL = unset) */
  sb_opt_source_t source;
  int group;               /* help grouping, see sb_opt_register */
  bool from_script;        /* registered by a Lua script */
  bool extension;          /* a bmk addition to a script's options: not
                              listed under the sysbench persona */
} sb_opt_t;

/* Help groups (which help block an option is printed in). */
enum {
  SB_GROUP_GENERAL = 0,
  SB_GROUP_RAND,
  SB_GROUP_LOG,
  SB_GROUP_REPORT,          /* --percentile, --histogram */
  SB_GROUP_DB,
  SB_GROUP_DRIVER,          /* per driver; the driver name is kept */
  SB_GROUP_EXT_GENERAL,
  SB_GROUP_EXT_DRIVER,
  SB_GROUP_TEST,            /* built-in test or script */
  SB_GROUP_HIDDEN
};

/* Initialises the registry (empty). Call once. */
void sb_opt_init(void);

/* Frees everything. */
void sb_opt_done(void);

/*
 * Registers one option. If an option with the same (normalised) name
 * exists, the existing definition wins and 0 is returned (bmk decision:
 * core definitions win over script re-declarations). The value is taken
 * from the command line, else the config file, else `def`.
 * Returns 0, or -1 when a pending command-line/config value is invalid
 * for the type (message printed: `invalid option: --x=v` for BOOL,
 * `Invalid value for the 'x' option: 'v'` for INT/DOUBLE/SIZE).
 */
int sb_opt_register(const char *name, const char *desc, const char *def,
                    sb_arg_type_t type, int group, const char *group_name);

/* Registers a NULL-terminated table (see sb_opt_register). */
int sb_opt_register_table(const sb_option_t *opts, int group,
                          const char *group_name);

/*
 * Parses argv: options (`--name[=value]`, anywhere) are stored as pending
 * values (last occurrence wins); other arguments are returned in order in
 * positional[] (at most max_pos; the count is returned in *npos).
 * `--config-file=F` is read at once (lower precedence than argv).
 * A lone "-" is a positional. Returns 0, or -1 on a config-file error
 * (message printed).
 */
int sb_opt_parse_argv(int argc, char **argv, char **positional,
                      unsigned max_pos, unsigned *npos);

/* Reads a config file into the pending config values. Returns 0 or -1
   (`unexpected EOL on line N`, or the file cannot be opened). */
int sb_opt_read_config(const char *path);

/*
 * Checks that every pending command-line option is registered. Prints
 * `invalid option: <arg>` for the first unknown one and returns -1.
 * Unknown config-file names only warn (printed when the file is read).
 */
int sb_opt_check_unknown(void);

/* Marks pending options unknown to the registry as accepted (used when the
   script comes from stdin with no command). */
void sb_opt_ignore_unknown(void);

/* True if `name` was given on the command line or in the config file. */
bool sb_opt_given(const char *name);

/* True if `name` is given on the command line only (not config). */
bool sb_opt_given_cmdline(const char *name);

/* Looks an option up; NULL if not registered. */
sb_opt_t *sb_opt_find(const char *name);

/* Typed getters. Unregistered options give 0/false/NULL. Values were
   validated at registration, so they do not fail. */
bool sb_opt_bool(const char *name);
int sb_opt_int(const char *name);
uint64_t sb_opt_size(const char *name);   /* bytes */
double sb_opt_double(const char *name);
const char *sb_opt_str(const char *name); /* NULL if unset */
/* LIST items; *n receives the count. */
char **sb_opt_list(const char *name, unsigned *n);
/* Every value the command line gave for a repeatable option, in order
   (--threshold=A --threshold=B: both; the getters above keep the last
   one): up to `max` pointers into `out` (valid until the options are
   freed). When the command line has none, the config file's values.
   Returns the number of values. Main thread. */
unsigned sb_opt_all_values(const char *name, const char **out, unsigned max);

/* Sets a value programmatically (e.g. deprecated aliases). Returns 0 or
   -1 if the value is invalid for the type. */
int sb_opt_set(const char *name, const char *value);

/* Parsers shared with tests: return 0 and the value, or -1. */
int sb_parse_bool(const char *s, bool *out);
int sb_parse_int(const char *s, int *out);
int sb_parse_size(const char *s, uint64_t *out);
int sb_parse_double(const char *s, double *out);

/* Iteration over registered options in registration order. */
unsigned sb_opt_count(void);
sb_opt_t *sb_opt_at(unsigned i);

/* Help: prints the options of `group` (and `group_name` for driver groups;
   NULL = any) aligned on their own, one per line in registration order,
   `  --<name><fmt><pad><desc> [default]` (sysbench layout). `sorted`
   sorts by name in byte order (script options). */
void sb_opt_print_group(int group, const char *group_name, bool sorted);

/* sb_opt_print_group plus `nextra` help-only lines from `extra` (not
   registered options: e.g. script options whose name a core option already
   has), aligned and sorted together with the group's options. */
void sb_opt_print_group_extra(int group, const char *group_name, bool sorted,
                              const sb_option_t *extra, unsigned nextra);

/* The help format suffix of a type: "=N", "[=on|off]", "=SIZE", ... */
const char *sb_opt_type_fmt(sb_arg_type_t type);

#endif

/*
 * The static binary links Debian's libpq.a, which is built with GSSAPI
 * and LDAP support; Debian ships no static Kerberos or OpenLDAP
 * libraries. These stand-ins make every GSSAPI call fail ("no
 * credentials"), so libpq skips GSS encryption and authentication, and
 * every LDAP call fail, so an ldap:// service lookup reports an error.
 * Documented in README ("One portable binary"). Only in bmk-x64.
 */
#include <stddef.h>
#include <stdint.h>

typedef uint32_t OM_uint32;
#define GSS_S_FAILURE (13u << 16)

/* libpq takes the address of this OID; its value is never used here. */
static char hostbased_service_oid[16];
void *GSS_C_NT_HOSTBASED_SERVICE = hostbased_service_oid;

static OM_uint32 gss_fail(OM_uint32 *minor)
{
  if (minor)
    *minor = 0;
  return GSS_S_FAILURE;
}

OM_uint32 gss_acquire_cred(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_delete_sec_context(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_display_status(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_import_name(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_init_sec_context(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_release_buffer(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_release_cred(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_release_name(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_unwrap(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_wrap(OM_uint32 *minor, ...) { return gss_fail(minor); }
OM_uint32 gss_wrap_size_limit(OM_uint32 *minor, ...) { return gss_fail(minor); }

/* LDAP: an initialisation that fails; the rest is never reached. */
#define LDAP_UNAVAILABLE 52
void *ldap_init(const char *host, int port) { (void) host; (void) port; return NULL; }
int ldap_count_entries(void *ld, void *res) { (void) ld; (void) res; return -1; }
char *ldap_err2string(int err) { (void) err; return (char *) "LDAP is not supported by this static binary"; }
void *ldap_first_entry(void *ld, void *res) { (void) ld; (void) res; return NULL; }
void *ldap_get_values_len(void *ld, void *entry, const char *attr) { (void) ld; (void) entry; (void) attr; return NULL; }
int ldap_msgfree(void *res) { (void) res; return 0; }
int ldap_result(void *ld, int id, int all, void *timeout, void **res) { (void) ld; (void) id; (void) all; (void) timeout; (void) res; return -1; }
int ldap_search_st(void *ld, ...) { (void) ld; return LDAP_UNAVAILABLE; }
int ldap_set_option(void *ld, int opt, const void *val) { (void) ld; (void) opt; (void) val; return LDAP_UNAVAILABLE; }
int ldap_simple_bind(void *ld, const char *dn, const char *pw) { (void) ld; (void) dn; (void) pw; return -1; }
int ldap_unbind(void *ld) { (void) ld; return 0; }
void ldap_value_free_len(void *vals) { (void) vals; }

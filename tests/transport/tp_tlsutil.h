/*
 * Helpers shared by the TLS transport tests: one throw-away PKI per test program (a CA, a
 * server certificate it signs for localhost and 127.0.0.1, a second unrelated CA) and the
 * options of an encrypted server and client that use it.
 */
#ifndef RWFPERF_TP_TLSUTIL_H
#define RWFPERF_TP_TLSUTIL_H

#include "tp_testutil.h"
#include "ts_tls.h"

typedef struct tt_pki {
    ts_cert ca;     /* the CA the client trusts */
    ts_cert server; /* CN=localhost, SAN DNS:localhost, IP:127.0.0.1, signed by ca */
    ts_cert other;  /* another CA (the "wrong" one) */
} tt_pki;

static tt_pki tt;

static inline void tt_pki_make(void)
{
    ts_cert_make(&tt.ca, "ca", "rwfperf test CA", NULL, -60, 86400, true, NULL);
    ts_cert_make(&tt.server, "server", "localhost", "DNS:localhost,IP:127.0.0.1", -60, 86400, false,
                 &tt.ca);
    ts_cert_make(&tt.other, "other", "someone else's CA", NULL, -60, 86400, true, NULL);
}

static inline void tt_pki_free(void)
{
    ts_cert_free(&tt.ca);
    ts_cert_free(&tt.server);
    ts_cert_free(&tt.other);
    ts_tls_cleanup();
}

/* CMocka group setup and teardown of a TLS test program: its PKI. */
static inline int tt_group_setup(void **state)
{
    (void)state;
    tt_pki_make();
    return 0;
}

static inline int tt_group_teardown(void **state)
{
    (void)state;
    tt_pki_free();
    return 0;
}

/* An encrypted server on 127.0.0.1 (ephemeral port) with the certificate c. */
static inline void tt_server_opts(tp_opts *o, const ts_cert *c)
{
    tu_opts(o);
    o->conn_type = TP_CONN_ENCRYPTED;
    o->tls_cert_file = c->cert_path;
    o->tls_key_file = c->key_path;
}

/* An encrypted client of host (NULL: "localhost") trusting the CA file ca. */
static inline void tt_client_opts(tp_opts *o, const char *host, const char *ca)
{
    tu_opts(o);
    o->conn_type = TP_CONN_ENCRYPTED;
    o->host = host ? host : "localhost";
    o->tls_ca_store = ca;
}

/* Drives a client and the server's side of its connection until both are done (active or
 * failed) or timeout_ms passes. Unlike tu_handshake it keeps a failed server channel, so
 * that both errors can be looked at: *serr and *cerr receive them ("" when none). */
static inline void tt_drive(tu_pair *p, int *rs, int *rc, char *serr, char *cerr, size_t cap,
                            int timeout_ms)
{
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    *rs = *rc = TP_PENDING;
    serr[0] = cerr[0] = 0;
    while (tu_now_ms() < end) {
        if (!p->s) {
            int a = tp_accept(p->srv, &p->s);
            assert_true(a >= 0);
        }
        if (p->s && (*rs == TP_PENDING || *rs == TP_FD_CHANGE)) {
            *rs = tp_init(p->s);
            if (*rs < 0)
                snprintf(serr, cap, "%s", err_msg());
        }
        if (*rc == TP_PENDING || *rc == TP_FD_CHANGE) {
            *rc = tp_init(p->c);
            if (*rc < 0)
                snprintf(cerr, cap, "%s", err_msg());
        }
        int sdone = p->s && (*rs == TP_ACTIVE || *rs < 0);
        int cdone = *rc == TP_ACTIVE || *rc < 0;
        if (sdone && cdone)
            return;
        struct pollfd f[3];
        int n = 0;
        f[n++] = (struct pollfd){.fd = tp_server_fd(p->srv), .events = POLLIN};
        if (!cdone)
            f[n++] = (struct pollfd){.fd = tp_fd(p->c), .events = tp_events(p->c)};
        if (p->s && !sdone)
            f[n++] = (struct pollfd){.fd = tp_fd(p->s), .events = tp_events(p->s)};
        poll(f, (nfds_t)n, 5);
    }
}

/* Binds *so, connects *co to it and drives both; returns the results as tt_drive. */
static inline void tt_try(tu_pair *p, tp_opts *so, tp_opts *co, int *rs, int *rc, char *serr,
                          char *cerr, size_t cap)
{
    memset(p, 0, sizeof(*p));
    if (tp_bind(so, &p->srv) != 0)
        fail_msg("tp_bind: %s", err_msg());
    snprintf(p->port, sizeof(p->port), "%u", tp_server_port(p->srv));
    co->port = p->port;
    if (tp_connect(co, &p->c) != 0)
        fail_msg("tp_connect: %s", err_msg());
    tt_drive(p, rs, rc, serr, cerr, cap, 8000);
}

/* Fails the test unless text contains part. */
static inline void tt_assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

#endif

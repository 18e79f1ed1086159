/* Encrypted connections as every tool offers them (see run_tls.h). */
#include "run_tls.h"

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "out.h"

const opt_name run_tls_protocols[] = {
    {"socket", TP_CONN_SOCKET, NULL},       {"websocket", TP_CONN_WEBSOCKET, NULL},
    {"webSocket", TP_CONN_WEBSOCKET, NULL}, {"WebSocket", TP_CONN_WEBSOCKET, NULL},
    {"http", 0, "HTTP tunnelling"},         {NULL, 0, NULL},
};

const opt_name run_tls_records_names[] = {
    {"transport", TP_TLS_RECORDS_TRANSPORT, NULL},
    {"read", TP_TLS_RECORDS_READ, NULL},
    {"write", TP_TLS_RECORDS_WRITE, NULL},
    {"openssl", TP_TLS_RECORDS_OPENSSL, NULL},
    {NULL, 0, NULL},
};

const opt_name run_tls_gcm_names[] = {
    {"auto", TP_TLS_GCM_AUTO, NULL},
    {"vaes", TP_TLS_GCM_VAES, NULL},
    {"openssl", TP_TLS_GCM_OPENSSL, NULL},
    {NULL, 0, NULL},
};

void run_tls_defaults(run_tls *t)
{
    memset(t, 0, sizeof(*t));
    t->encrypted_protocol = TP_CONN_SOCKET;
    t->records = TP_TLS_RECORDS_TRANSPORT;
    t->gcm = TP_TLS_GCM_AUTO;
}

/* The word of value v in names ("?" when none). */
static const char *name_of(const opt_name *names, int v)
{
    for (; names->name; names++)
        if (names->value == v)
            return names->name;
    return "?";
}

const char *run_tls_records_text(const run_tls *t)
{
    return name_of(run_tls_records_names, (int)t->records);
}

const char *run_tls_gcm_text(const run_tls *t)
{
    if (t->gcm == TP_TLS_GCM_AUTO)
        return tp_tls_vaes_available() ? "auto (vaes)" : "auto (openssl)";
    return name_of(run_tls_gcm_names, (int)t->gcm);
}

int run_tls_protocol_flags(const run_tls *t)
{
    return t->sp_tls12 ? TP_TLS_V1_2 : 0;
}

void run_tls_seen_init(run_tls_seen *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
}

void run_tls_seen_add(run_tls_seen *s, const char *version, const char *cipher)
{
    if (!version[0])
        return;
    pthread_mutex_lock(&s->lock);
    int i = 0;
    while (i < s->n &&
           (strcmp(s->v[i].version, version) != 0 || strcmp(s->v[i].cipher, cipher) != 0))
        i++;
    if (i == s->n && s->n < RUN_TLS_SEEN_MAX) {
        snprintf(s->v[i].version, sizeof(s->v[i].version), "%s", version);
        snprintf(s->v[i].cipher, sizeof(s->v[i].cipher), "%s", cipher);
        s->n++;
    }
    if (i < s->n)
        s->v[i].connections++;
    pthread_mutex_unlock(&s->lock);
}

void run_tls_seen_note(run_tls_seen *s, tp_channel *ch)
{
    tp_info in;
    if (tp_get_info(ch, &in) == 0)
        run_tls_seen_add(s, in.tls_version, in.tls_cipher);
}

json_object *run_tls_seen_json(run_tls_seen *s)
{
    pthread_mutex_lock(&s->lock);
    json_object *a = NULL;
    if (s->n > 0)
        a = json_object_new_array();
    for (int i = 0; a && i < s->n; i++) {
        json_object *o = json_object_new_object();
        out_json_add(o, "version", json_object_new_string(s->v[i].version));
        out_json_add(o, "cipher", json_object_new_string(s->v[i].cipher));
        out_json_add(o, "connections", json_object_new_int((int)s->v[i].connections));
        json_object_array_add(a, o);
    }
    pthread_mutex_unlock(&s->lock);
    return a;
}

void run_tls_seen_to_results(json_object *doc, run_tls_seen *s)
{
    json_object *results = NULL, *tls = run_tls_seen_json(s);
    if (tls && doc && json_object_object_get_ex(doc, "results", &results))
        out_json_add(results, "tls", tls);
    else if (tls)
        json_object_put(tls);
}

bool run_conn_error(run_conn_errors *e, const char *fmt, const char *text)
{
    if (strcmp(e->last, text) == 0) {
        e->repeats++;
        return false;
    }
    snprintf(e->last, sizeof(e->last), "%s", text);
    e->repeats = 0;
    printf(fmt, text);
    return true;
}

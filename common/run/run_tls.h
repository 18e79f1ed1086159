/*
 * run_tls: encrypted connections (-connType encrypted) as every tool offers them, once:
 *
 *  - the options of the ETA tools: a client's -encryptedConnType (socket | websocket, the latter
 *    with the sub-protocols of run_ws's -pl), -castore and (ConsPerf)
 *    -spTLSv1.2; a server's -keyfile, -cert and (ProvPerf) -cipher (option-table entries a
 *    tool puts in its table with RUN_TLS_CLIENT_OPTIONS, RUN_TLS_SP12_OPTION,
 *    RUN_TLS_SERVER_OPTIONS, RUN_TLS_CIPHER_OPTION);
 *    (run_conn checks them at start and maps them to the transport's settings);
 *  - the TLS versions and cipher suites the connections negotiated, for the JSON summary;
 *  - the client's failure lines: one per distinct error, however often a retry meets it.
 */
#ifndef RWFPERF_RUN_TLS_H
#define RWFPERF_RUN_TLS_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "opt.h"
#include "tp.h"

#define RUN_TLS_PATH 512

typedef struct run_tls {
    tp_conn_type encrypted_protocol; /* -encryptedConnType: TP_CONN_SOCKET (RIPC inside TLS)
                                      * or TP_CONN_WEBSOCKET */
    char castore[RUN_TLS_PATH];      /* -castore: the client's CA file; "" = system default */
    bool sp_tls12;                   /* -spTLSv1.2: TLS 1.2 only (protocol flags 4) */
    char keyfile[RUN_TLS_PATH];      /* -keyfile: the server's PEM key */
    char cert[RUN_TLS_PATH];         /* -cert: the server's PEM certificate (chain) */
    char cipher[RUN_TLS_PATH];       /* -cipher: the server's TLS 1.2 cipher list, "" = default */
    tp_tls_records records;          /* -tlsRecords (ours): TP_TLS_RECORDS_TRANSPORT by default */
    tp_tls_gcm gcm;                  /* -tlsAesGcm (ours): TP_TLS_GCM_AUTO by default */
} run_tls;

/* Words of -encryptedConnType. */
extern const opt_name run_tls_protocols[];

/* Words of -tlsRecords and -tlsAesGcm (ours). */
extern const opt_name run_tls_records_names[];
extern const opt_name run_tls_gcm_names[];

/* The client's options; T is the tool's configuration type and f its run_tls member. */
#define RUN_TLS_CLIENT_OPTIONS(T, f)                                                               \
    OPT_ENUM_T_(                                                                                   \
        "-encryptedConnType", T, f.encrypted_protocol, tp_conn_type, run_tls_protocols, "<type>",  \
        "What runs inside an encrypted connection: socket (RIPC) or websocket"),                   \
        OPT_STR_("-castore", T, f.castore, "<file>",                                               \
                 "CA certificates (PEM) the server's certificate must chain to; default: the "     \
                 "system's store")

/* -spTLSv1.2 (ConsPerf's). */
#define RUN_TLS_SP12_OPTION(T, f)                                                                  \
    OPT_FLAG_("-spTLSv1.2", T, f.sp_tls12, "Encrypted connections use TLS 1.2 only")

/* The server's options. */
#define RUN_TLS_SERVER_OPTIONS(T, f)                                                               \
    OPT_STR_("-keyfile", T, f.keyfile, "<file>", "Private key (PEM) of an encrypted server"),      \
        OPT_STR_("-cert", T, f.cert, "<file>",                                                     \
                 "Certificate (PEM, the chain after it) of an encrypted server")

/* -cipher (ProvPerf's). */
#define RUN_TLS_CIPHER_OPTION(T, f)                                                                \
    OPT_STR_("-cipher", T, f.cipher, "<list>",                                                     \
             "TLS 1.2 cipher suites of an encrypted server (OpenSSL list); default: the "          \
             "DHE/ECDHE-RSA AES-GCM and SHA-2 suites")

/* Ours, for every tool: which TLS records the transport protects itself after OpenSSL's
 * handshake, and with which AES-GCM code (tp_opts.tls_records, tls_gcm). */
#define RUN_TLS_RECORD_OPTIONS(T, f)                                                               \
    OPT_ENUM_T_("-tlsRecords", T, f.records, tp_tls_records, run_tls_records_names,                \
                "<transport|read|write|openssl>",                                                  \
                "Encrypted connections, AES-GCM suites (ours): which TLS records the transport "   \
                "protects itself once OpenSSL's handshake is done: transport (a client reads its " \
                "records in place, a server seals its own), read (clients only), write (servers "  \
                "only), openssl (OpenSSL reads and writes them all)"),                             \
        OPT_ENUM_T_(                                                                               \
            "-tlsAesGcm", T, f.gcm, tp_tls_gcm, run_tls_gcm_names, "<auto|vaes|openssl>",          \
            "The AES-GCM code of the records the transport protects (ours): auto (VAES and "       \
            "VPCLMULQDQ where the CPU has them, else OpenSSL's), vaes (refused on a CPU "          \
            "without them), openssl")

/* Fills t with the defaults (everything off or empty). */
void run_tls_defaults(run_tls *t);

/* The TEST INPUTS values of -tlsRecords and -tlsAesGcm: the word given, and for auto the code
 * it chooses on this CPU ("auto (vaes)", "auto (openssl)"). */
const char *run_tls_records_text(const run_tls *t);
const char *run_tls_gcm_text(const run_tls *t);

/* The TLS protocol flags the ETA tools print in TEST INPUTS ("TLS Protocol flags"): 4 with
 * -spTLSv1.2, else 0 (the library's default). */
int run_tls_protocol_flags(const run_tls *t);

/* ---- what the connections negotiated ---------------------------------------------------- */

#define RUN_TLS_SEEN_MAX 8

/* Distinct (version, cipher) pairs and how many connections had each; filled by workers and
 * read by the main thread (under its lock, not on a hot path). */
typedef struct run_tls_seen {
    pthread_mutex_t lock;
    int n;
    struct {
        char version[16];
        char cipher[64];
        unsigned connections;
    } v[RUN_TLS_SEEN_MAX];
} run_tls_seen;

void run_tls_seen_init(run_tls_seen *s);

/* Notes the TLS version and cipher of a channel that became active (nothing when it has
 * none). */
void run_tls_seen_note(run_tls_seen *s, tp_channel *ch);

/* Counts one connection that negotiated version and cipher (nothing when version is ""). */
void run_tls_seen_add(run_tls_seen *s, const char *version, const char *cipher);

/* The pairs as a JSON array of {"version", "cipher", "connections"}, or NULL when no
 * encrypted connection was seen. */
json_object *run_tls_seen_json(run_tls_seen *s);

/* Adds the pairs (run_tls_seen_json) as "tls" to the "results" object of the JSON summary
 * doc, when an encrypted connection was seen. doc may be NULL (json-c ran out of memory). */
void run_tls_seen_to_results(json_object *doc, run_tls_seen *s);

/* ---- a client's failure lines ----------------------------------------------------------- */

/* The last failure text a client printed. */
typedef struct run_conn_errors {
    char last[1024];
    unsigned repeats; /* attempts since it was printed that failed the same way */
} run_conn_errors;

/* Prints (to stdout, with fmt around the text, "%s" in it) the failure of a connection attempt
 * when it differs from the previous one; counts it otherwise. Returns true when printed. */
bool run_conn_error(run_conn_errors *e, const char *fmt, const char *text);

#endif

/*
 * pvt: helpers for the integration tests of the provider tools (ProvPerf, NIProvPerf): a
 * working folder with the input files, the tool started in it with its output captured, its
 * listening port read back from its console (it binds port 0), a transport client or server
 * for the test's side, raw RIPC frames read after the handshake (to see packing), and RWF
 * messages built with the codec.
 *
 * Every wait is bounded; a tool that is still running at the end of a test is ended with
 * SIGKILL by its PID. Nothing here uses a fixed port.
 */
#ifndef RWFPERF_PVT_H
#define RWFPERF_PVT_H

#include "testsupport.h"

#include "err.h"
#include "rwf.h"
#include "rwf_rdm.h"
#include "tp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline int64_t pvt_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- working folder ------------------------------------------------------------------------ */

/* Copies src to dst (failing the test when it cannot). */
static inline void pvt_copy(const char *src, const char *dst)
{
    uint8_t *data;
    size_t len;
    if (ts_read_file(src, &data, &len) != 0)
        fail_msg("cannot read %s", src);
    FILE *f = fopen(dst, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        fail_msg("cannot write %s", dst);
    free(data);
}

static inline bool pvt_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/*
 * A fresh folder for one test holding RDMFieldDictionary, enumtype.def and MsgData.xml (the
 * project's data/ files),
 * and, when items > 0, 350k.xml with that many items from data/gen_items.sh. Static storage.
 */
static inline const char *pvt_workdir(const char *name, int items)
{
    static char dir[512];
    snprintf(dir, sizeof(dir), "%s/pvt-%d-%s", P_tmpdir, (int)getpid(), name);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        fail_msg("cannot make %s", dir);
    static const char *const files[] = {"RDMFieldDictionary", "enumtype.def", "MsgData.xml"};
    for (size_t i = 0; i < 3; i++) {
        char src[1024], dst[1024];
        snprintf(src, sizeof(src), "%s", ts_source_path("data/"));
        strncat(src, files[i], sizeof(src) - strlen(src) - 1);
        snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
        pvt_copy(src, dst);
    }
    if (items > 0) {
        snprintf(cmd, sizeof(cmd), "sh '%s' %d > '%s/350k.xml'",
                 ts_source_path("data/gen_items.sh"), items, dir);
        if (system(cmd) != 0)
            fail_msg("gen_items.sh failed");
    }
    return dir;
}

/* The whole file at path, NUL-terminated (caller frees), or NULL. */
static inline char *pvt_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* ---- the tool ------------------------------------------------------------------------------ */

typedef struct pvt_proc {
    pid_t pid;
    int status; /* exit status once ended, -signal when killed, 999 while running */
    char dir[512];
    char out[600]; /* its console output */
} pvt_proc;

/* Starts $RWFPERF_BIN/<tool> (or build/bin) in dir with args (NULL-terminated), its standard
 * output and error going to dir/<tool>.out. */
static inline void pvt_start(pvt_proc *p, const char *dir, const char *tool,
                             const char *const *args)
{
    const char *bin = getenv("RWFPERF_BIN");
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", bin && *bin ? bin : ts_binary_path("bin"), tool);
    if (!pvt_exists(path))
        fail_msg("%s not built", path);
    snprintf(p->dir, sizeof(p->dir), "%s", dir);
    snprintf(p->out, sizeof(p->out), "%s/%s.out", dir, tool);
    p->status = 999;
    unlink(p->out); /* a previous run's output must not be read as this one's */
    char *argv[64];
    int n = 0;
    argv[n++] = path;
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    p->pid = fork();
    if (p->pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (p->pid == 0) {
        int fd = open(p->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || chdir(dir) != 0)
            _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        execv(path, argv);
        _exit(127);
    }
}

/* The tool's output so far (malloc'ed, NUL-terminated). */
static inline char *pvt_output(const pvt_proc *p)
{
    char *text = pvt_slurp(p->out);
    return text ? text : strdup("");
}

/* Reaps the tool if it ended; returns true when it has. */
static inline bool pvt_ended(pvt_proc *p)
{
    if (p->status != 999)
        return true;
    int st;
    pid_t r = waitpid(p->pid, &st, WNOHANG);
    if (r == p->pid) {
        p->status = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
        return true;
    }
    return false;
}

/* Waits until the output contains text; returns the output (caller frees). Fails the test on
 * timeout or when the tool ends first. */
static inline char *pvt_wait_for(pvt_proc *p, const char *text, int timeout_ms)
{
    int64_t end = pvt_ms() + timeout_ms;
    for (;;) {
        char *out = pvt_output(p);
        if (strstr(out, text))
            return out;
        bool ended = pvt_ended(p);
        if (ended || pvt_ms() > end) {
            fprintf(stderr, "---- %s ----\n%s\n----\n", p->out, out);
            free(out);
            fail_msg("'%s' not seen in the tool's output (%s)", text,
                     ended ? "it ended" : "timed out");
        }
        free(out);
        usleep(20000);
    }
}

/* The port the tool reported ("bound to port N."). */
static inline int pvt_port(pvt_proc *p, int timeout_ms)
{
    char *out = pvt_wait_for(p, " bound to port ", timeout_ms);
    int port = atoi(strstr(out, " bound to port ") + 15);
    free(out);
    if (port <= 0)
        fail_msg("bad port in the tool's output");
    return port;
}

/* Waits for the tool to end; returns its status (-signal when killed; 999 on timeout). */
static inline int pvt_wait(pvt_proc *p, int timeout_ms)
{
    int64_t end = pvt_ms() + timeout_ms;
    while (!pvt_ended(p) && pvt_ms() < end)
        usleep(20000);
    return p->status;
}

/* Sends sig and waits for the end; kills it when it does not end in time. */
static inline int pvt_stop(pvt_proc *p, int sig, int timeout_ms)
{
    if (!pvt_ended(p))
        kill(p->pid, sig);
    int st = pvt_wait(p, timeout_ms);
    if (st == 999) {
        kill(p->pid, SIGKILL);
        pvt_wait(p, 5000);
        fail_msg("the tool did not end within %d ms of signal %d", timeout_ms, sig);
    }
    return st;
}

/* Removes the tool's folder (at the end of a test that passed). */
static inline void pvt_remove(const pvt_proc *p)
{
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", p->dir);
}

/* Reads a file of the tool's folder (caller frees). */
static inline char *pvt_file(const pvt_proc *p, const char *name)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", p->dir, name);
    char *text = pvt_slurp(path);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

/* ---- the test's end of the connection ------------------------------------------------------ */

/* Connects to the tool on 127.0.0.1:port; o may be NULL (defaults). */
static inline tp_channel *pvt_connect(int port, const tp_opts *o)
{
    tp_opts opts;
    if (o)
        opts = *o;
    else
        tp_opts_init(&opts);
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    opts.host = "127.0.0.1";
    opts.port = ps;
    tp_channel *ch;
    if (tp_connect(&opts, &ch) != 0)
        fail_msg("tp_connect: %s", err_msg());
    if (tp_init_wait(ch, 5000) != TP_ACTIVE)
        fail_msg("handshake: %s", err_msg());
    return ch;
}

/* Sends len bytes as one message. */
static inline void pvt_send(tp_channel *ch, const void *data, size_t len)
{
    tp_buf *b;
    if (tp_get_buffer(ch, (uint32_t)len, false, &b) != 0)
        fail_msg("tp_get_buffer: %s", err_msg());
    memcpy(b->data, data, len);
    b->len = (uint32_t)len;
    int rc = tp_write(ch, b, 0);
    while (rc > 0)
        rc = tp_flush(ch);
    if (rc < 0)
        fail_msg("tp_write: %s", err_msg());
}

/* Encodes with the given encoder call into a buffer and sends it. */
#define PVT_SEND_ENC(ch, call)                                                                     \
    do {                                                                                           \
        uint8_t pvt_b_[4096];                                                                      \
        rwf_enc e;                                                                                 \
        rwf_enc_init(&e, pvt_b_, sizeof(pvt_b_));                                                  \
        if ((call) < 0)                                                                            \
            fail_msg("encode: %s", err_msg());                                                     \
        size_t pvt_n_;                                                                             \
        if (rwf_enc_finish(&e, &pvt_n_) != RWF_OK)                                                 \
            fail_msg("encode: %s", err_msg());                                                     \
        pvt_send((ch), pvt_b_, pvt_n_);                                                            \
    } while (0)

/* Reads the next message (pings skipped) into buf; returns its length, 0 on timeout, -1 when
 * the channel closed. */
static inline int pvt_recv(tp_channel *ch, uint8_t *buf, size_t cap, int timeout_ms)
{
    int64_t end = pvt_ms() + timeout_ms;
    for (;;) {
        tp_msg m;
        int rc = tp_read(ch, &m);
        if (rc < 0)
            return -1;
        if (rc & TP_READ_MSG) {
            if (m.len > cap)
                fail_msg("message of %u bytes exceeds %zu", m.len, cap);
            memcpy(buf, m.data, m.len);
            return (int)m.len;
        }
        if (rc & TP_READ_MORE)
            continue;
        int64_t left = end - pvt_ms();
        if (left <= 0)
            return 0;
        struct pollfd f = {.fd = tp_fd(ch), .events = POLLIN};
        poll(&f, 1, (int)(left < 50 ? left : 50));
    }
}

/* Reads messages until one of class cls on stream sid arrives (others are skipped and
 * counted in *skipped when not NULL); returns its length; fails on timeout. */
static inline int pvt_expect(tp_channel *ch, uint8_t *buf, size_t cap, int cls, int32_t sid,
                             int timeout_ms, int *skipped)
{
    int64_t end = pvt_ms() + timeout_ms;
    while (pvt_ms() < end) {
        int n = pvt_recv(ch, buf, cap, (int)(end - pvt_ms()));
        if (n < 0)
            fail_msg("channel closed while waiting for class %d on stream %d", cls, sid);
        if (n == 0)
            break;
        rwf_buf v = rwf_buf_make(buf, (size_t)n);
        if (rwf_msg_peek_class(v) == cls && rwf_msg_peek_stream(v) == sid)
            return n;
        if (skipped)
            (*skipped)++;
    }
    fail_msg("no message of class %d on stream %d within %d ms", cls, sid, timeout_ms);
    return 0;
}

/* ---- raw frames ---------------------------------------------------------------------------- */

/* Reads the socket of an active channel directly (the transport's own input is empty after
 * the handshake, since the tool sends nothing before it is asked). Uncompressed channels. */
typedef struct pvt_raw {
    int fd;
    uint8_t buf[1 << 16];
    size_t len;
} pvt_raw;

/* The next frame: *flags, payload into out (cap bytes); returns the payload length, or -1 on
 * timeout or close. */
static inline int pvt_raw_frame(pvt_raw *r, uint8_t *flags, uint8_t *out, size_t cap,
                                int timeout_ms)
{
    int64_t end = pvt_ms() + timeout_ms;
    for (;;) {
        if (r->len >= 3) {
            size_t flen = (size_t)r->buf[0] << 8 | r->buf[1];
            if (flen < 3)
                fail_msg("bad frame length %zu", flen);
            if (r->len >= flen) {
                *flags = r->buf[2];
                size_t n = flen - 3;
                if (n > cap)
                    fail_msg("frame of %zu bytes exceeds %zu", n, cap);
                memcpy(out, r->buf + 3, n);
                memmove(r->buf, r->buf + flen, r->len - flen);
                r->len -= flen;
                return (int)n;
            }
        }
        int64_t left = end - pvt_ms();
        if (left <= 0)
            return -1;
        struct pollfd f = {.fd = r->fd, .events = POLLIN};
        if (poll(&f, 1, (int)left) <= 0)
            continue;
        ssize_t n = recv(r->fd, r->buf + r->len, sizeof(r->buf) - r->len, 0);
        if (n <= 0)
            return -1;
        r->len += (size_t)n;
    }
}

/* ---- captures ------------------------------------------------------------------------------ */

/* The RWF messages of one direction of a capture (an uncompressed one): views into
 * streams, in order, packed frames split; the handshake frames (ConnectReq/Ack, key exchange)
 * skipped. */
typedef struct pvt_msgs {
    const uint8_t *m[4096];
    uint32_t len[4096];
    uint8_t packed[4096]; /* 1 when the message came in a packed frame */
    int n;
} pvt_msgs;

static inline void pvt_split(const ts_bytes *b, bool client_side, pvt_msgs *out)
{
    out->n = 0;
    size_t off = 0;
    int frame = 0;
    while (off + 3 <= b->len && out->n < 4096) {
        size_t flen = (size_t)b->data[off] << 8 | b->data[off + 1];
        uint8_t fl = b->data[off + 2];
        if (flen < 3 || off + flen > b->len)
            break;
        bool handshake = frame == 0 || (client_side && fl == 0x08);
        if (!handshake && flen > 3) {
            const uint8_t *p = b->data + off + 3, *end = b->data + off + flen;
            if (fl == 0x12) {
                while (end - p >= 2 && out->n < 4096) {
                    size_t n = (size_t)p[0] << 8 | p[1];
                    if (!n || n > (size_t)(end - p - 2))
                        break;
                    out->m[out->n] = p + 2;
                    out->len[out->n] = (uint32_t)n;
                    out->packed[out->n++] = 1;
                    p += 2 + n;
                }
            } else if (fl == 0x02) {
                out->m[out->n] = p;
                out->len[out->n] = (uint32_t)(end - p);
                out->packed[out->n++] = 0;
            }
        }
        off += flen;
        frame++;
    }
}

/* Loads tests/data/captures/<name>/<name>.pcap (server port 14002). */
static inline void pvt_capture(const char *name, ts_tcp_streams *st, pvt_msgs *requests,
                               pvt_msgs *answers)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/%s.pcap", name, name);
    const char *path = ts_capture(rel);
    if (ts_pcap_tcp_streams(path, 14002, st) != 0)
        fail_msg("cannot read %s", path);
    pvt_split(&st->client_to_server, true, requests);
    pvt_split(&st->server_to_client, false, answers);
}

/* Length of an update's bytes up to its TIM_TRK_1 value (the stamp varies from run to run):
 * the whole message when it carries none. */
static inline uint32_t pvt_unstamped_len(const uint8_t *m, uint32_t len)
{
    if (len > 8 && m[2] == RWF_MC_UPDATE) {
        rwf_msg msg;
        if (rwf_msg_decode(&msg, rwf_buf_make(m, len)) == RWF_OK) {
            rwf_fl_dec d;
            rwf_field f;
            if (rwf_fl_dec_init(&d, msg.payload, NULL) == RWF_OK)
                while (rwf_fl_next(&d, &f) == RWF_OK)
                    if (f.fid == 3902)
                        return (uint32_t)((const uint8_t *)f.data.data - 1 - m);
        }
    }
    return len;
}

/* The UINT values of the latency stamp fields (TIM_TRK_1..3) of message m's field list into
 * t[0..2], 0 for an absent or blank one. Returns 0, or -1 when the message, its field list or
 * a stamp does not decode. */
static inline int pvt_stamps(const uint8_t *m, int len, uint64_t t[3])
{
    t[0] = t[1] = t[2] = 0;
    rwf_msg msg;
    rwf_fl_dec d;
    rwf_field f;
    if (rwf_msg_decode(&msg, rwf_buf_make(m, (size_t)len)) != RWF_OK ||
        rwf_fl_dec_init(&d, msg.payload, NULL) != RWF_OK)
        return -1;
    while (rwf_fl_next(&d, &f) == RWF_OK)
        if (f.fid >= 3902 && f.fid <= 3904 && f.data.len &&
            rwf_get_uint(f.data, &t[f.fid - 3902]) != RWF_OK)
            return -1;
    return 0;
}

/* A copy of message m in out without its latency stamps (non-blank TIM_TRK_1..3 fields of an
 * update or generic message's field list, the field count adjusted); other messages are
 * copied as they are. Returns the copy's length. */
static inline uint32_t pvt_strip_stamps(const uint8_t *m, uint32_t len, uint8_t *out)
{
    memcpy(out, m, len);
    rwf_msg msg;
    if (len < 3 || (m[2] != RWF_MC_UPDATE && m[2] != RWF_MC_GENERIC) ||
        rwf_msg_decode(&msg, rwf_buf_make(m, len)) != RWF_OK ||
        msg.container_type != RWF_DT_FIELD_LIST)
        return len;
    const uint8_t *fl = (const uint8_t *)msg.payload.data;
    rwf_fl_dec d;
    rwf_field f;
    if (rwf_fl_dec_init(&d, msg.payload, NULL) != RWF_OK || fl[0] != 0x08)
        return len;
    uint32_t o = (uint32_t)(fl + 3 - m);
    uint16_t kept = 0;
    const uint8_t *at = fl + 3;
    while (rwf_fl_next(&d, &f) == RWF_OK) {
        const uint8_t *end = (const uint8_t *)f.data.data + f.data.len;
        if (!(f.fid >= 3902 && f.fid <= 3904 && f.data.len)) {
            memcpy(out + o, at, (size_t)(end - at));
            o += (uint32_t)(end - at);
            kept++;
        }
        at = end;
    }
    uint32_t c = (uint32_t)(fl + 1 - m);
    out[c] = (uint8_t)(kept >> 8);
    out[c + 1] = (uint8_t)kept;
    return o;
}

/* Replaces the login Position "<ip>/net" in an encoded login message (Request or Refresh, no
 * payload) by `want`, fixing the three lengths that cover it. Returns the new length. */
static inline uint32_t pvt_set_position(uint8_t *m, uint32_t len, uint32_t cap, const char *want)
{
    static const uint8_t tag[] = {0x08, 'P', 'o', 's', 'i', 't', 'i', 'o', 'n', 0x11};
    uint8_t *p = NULL;
    for (uint32_t i = 0; i + sizeof(tag) < len && !p; i++)
        if (memcmp(m + i, tag, sizeof(tag)) == 0)
            p = m + i + sizeof(tag);
    if (!p)
        fail_msg("no Position element");
    uint32_t old = p[0], now = (uint32_t)strlen(want);
    int delta = (int)now - (int)old;
    if (len + (uint32_t)(delta > 0 ? delta : 0) > cap)
        fail_msg("position too long");
    memmove(p + 1 + now, p + 1 + old, len - (uint32_t)(p + 1 + old - m));
    memcpy(p + 1, want, now);
    p[0] = (uint8_t)now;
    len = (uint32_t)((int)len + delta);
    /* headerLength, then the key length and the attribute length (2-byte forms). */
    uint16_t h = (uint16_t)(((m[0] << 8) | m[1]) + delta);
    m[0] = (uint8_t)(h >> 8);
    m[1] = (uint8_t)h;
    uint8_t *k = m + (m[2] == RWF_MC_REFRESH ? 16 : 10); /* refresh: state, group before it */
    uint16_t kl = (uint16_t)((((k[0] & 0x7F) << 8) | k[1]) + delta);
    k[0] = (uint8_t)(0x80 | kl >> 8);
    k[1] = (uint8_t)kl;
    uint8_t *a = k + 2 + 1 + 1 + k[3] + 1; /* key flags, name, attrib type */
    uint16_t al = (uint16_t)((((a[0] & 0x7F) << 8) | a[1]) + delta);
    a[0] = (uint8_t)(0x80 | al >> 8);
    a[1] = (uint8_t)al;
    return len;
}

#endif

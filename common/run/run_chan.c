#include "run_chan.h"

#include "err.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

void run_channel_info_print(FILE *f, int fd, const tp_info *in)
{
    /* Ours, after the original's block: what an encrypted channel negotiated. */
    char tls[128] = "";
    if (in->tls_version[0])
        snprintf(tls, sizeof(tls), "TLS: %s%s%s\n\n", in->tls_version,
                 in->tls_cipher[0] ? ", " : "", in->tls_cipher);
    fprintf(f,
            "Channel %d active. Channel Info:\n"
            "  maxFragmentSize: %u\n"
            "  maxOutputBuffers: %u\n"
            "  guaranteedOutputBuffers: %u\n"
            "  numInputBuffers: %u\n"
            "  pingTimeout: %u\n"
            "  clientToServerPings: %s\n"
            "  serverToClientPings: %s\n"
            "  sysSendBufSize: %d\n"
            "  sysSendBufSize: %d\n"
            "  compressionType: %s\n"
            "  compressionThreshold: %u\n"
            "  ComponentInfo: %s\n\n"
            "%s",
            fd, in->max_fragment_size, in->max_output_buffers, in->guaranteed_output_buffers,
            in->num_input_buffers, in->ping_timeout, in->client_to_server_pings ? "true" : "false",
            in->server_to_client_pings ? "true" : "false", in->sys_send_buf_size,
            in->sys_recv_buf_size, tp_comp_name(in->compression), in->compression_threshold,
            in->component[0] ? in->component : "(No component info)", tls);
}

int run_channel_info(FILE *f, tp_channel *ch)
{
    tp_info in;
    if (tp_get_info(ch, &in) != 0)
        return err_set("channel %d is not active", tp_fd(ch));
    run_channel_info_print(f, tp_fd(ch), &in);
    return 0;
}

bool run_channel_slow_reader(const char *why)
{
    return why && strstr(why, "lags writer") != NULL;
}

/* The line of a channel its peer closed in order (tp_closed_by_peer(why)): "the peer closed
 * the connection normally", then in parentheses what the transport said beyond that, the
 * context before TP_PEER_CLOSED and the how after it ("WS Code 1000 Normal Closure"). */
static void closed_by_peer(FILE *f, const char *why)
{
    const size_t n = strlen(TP_PEER_CLOSED);
    const char *p = strstr(why, TP_PEER_CLOSED);
    while (p && p[n] != '\0' && !(p[n] == ' ' && p[n + 1] == '('))
        p = strstr(p + n, TP_PEER_CLOSED);
    if (!p) /* not such a text after all */
        p = why + strlen(why);
    int pre = (int)(p - why);
    while (pre > 0 && (why[pre - 1] == ' ' || why[pre - 1] == ':'))
        pre--;
    const char *how = p[0] && p[n] ? p + n + 2 : "";
    int how_len = (int)strlen(how);
    if (how_len > 0 && how[how_len - 1] == ')')
        how_len--;
    if (!pre && !how_len)
        fprintf(f, "Channel Closed: the peer closed the connection normally.\n");
    else
        fprintf(f, "Channel Closed: the peer closed the connection normally (%.*s%s%.*s).\n", pre,
                why, pre && how_len ? ": " : "", how_len, how);
}

void run_channel_closed(FILE *f, const char *why)
{
    if (!why)
        fprintf(f, "Channel Closed.\n");
    else if (tp_closed_by_peer(why))
        closed_by_peer(f, why);
    else if (run_channel_slow_reader(why))
        fprintf(f, "Channel Closed: RSSL_RET_SLOW_READER(%s)\n", why);
    else
        fprintf(f, "Channel Closed: RSSL_RET_FAILURE(%s)\n", why);
}

int run_handoff_init(run_handoff *h, int index)
{
    memset(h, 0, sizeof(*h));
    h->index = index;
    atomic_init(&h->pending, 0);
    atomic_init(&h->open, 0);
    h->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (h->evfd < 0)
        return err_set_errno(errno, "thread %d: eventfd", index + 1);
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        close(h->evfd);
        h->evfd = -1;
        return err_set("thread %d: cannot create its lock", index + 1);
    }
    return 0;
}

void run_handoff_free(run_handoff *h)
{
    if (h->evfd < 0)
        return;
    for (int i = 0; i < h->n; i++)
        tp_close(h->q[i]);
    free(h->q);
    close(h->evfd);
    pthread_mutex_destroy(&h->lock);
    memset(h, 0, sizeof(*h));
    h->evfd = -1;
}

int run_handoff_give(run_handoff *h, tp_channel *ch)
{
    pthread_mutex_lock(&h->lock);
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 8;
        tp_channel **q = realloc(h->q, (size_t)cap * sizeof(*q));
        if (!q) {
            pthread_mutex_unlock(&h->lock);
            tp_close(ch);
            return err_set("out of memory handing a channel to thread %d", h->index + 1);
        }
        h->q = q;
        h->cap = cap;
    }
    h->q[h->n++] = ch;
    atomic_store_explicit(&h->pending, h->n, memory_order_release);
    atomic_fetch_add_explicit(&h->open, 1, memory_order_relaxed);
    uint64_t one = 1;
    int rc = write(h->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN ? errno : 0;
    pthread_mutex_unlock(&h->lock);
    if (rc)
        return err_set_errno(rc, "waking thread %d", h->index + 1);
    return 0;
}

int run_handoff_take(run_handoff *h, tp_channel **out, int max)
{
    if (atomic_load_explicit(&h->pending, memory_order_acquire) == 0)
        return 0;
    pthread_mutex_lock(&h->lock);
    int k = h->n < max ? h->n : max;
    memcpy(out, h->q, (size_t)k * sizeof(*out));
    memmove(h->q, h->q + k, (size_t)(h->n - k) * sizeof(*h->q));
    h->n -= k;
    atomic_store_explicit(&h->pending, h->n, memory_order_release);
    if (h->n == 0) {
        uint64_t v;
        if (read(h->evfd, &v, sizeof(v)) < 0) {
            /* EAGAIN: already empty */
        }
    }
    pthread_mutex_unlock(&h->lock);
    return k;
}

run_handoff *run_handoff_least(run_handoff *const *to, int n)
{
    run_handoff *best = to[0];
    int least = atomic_load(&to[0]->open);
    for (int i = 1; i < n; i++) {
        int o = atomic_load(&to[i]->open);
        if (o < least) {
            least = o;
            best = to[i];
        }
    }
    return best;
}

void run_accept_all(tp_server *srv, run_handoff *const *to, int n, const run_accept_text *text)
{
    for (;;) {
        tp_channel *ch;
        int rc = tp_accept(srv, &ch);
        if (rc == 0)
            return;
        if (rc < 0) {
            printf(text->failed, err_msg());
            return;
        }
        int sfd = tp_server_fd(srv), cfd = tp_fd(ch);
        if (text->accepting)
            printf("%s", text->accepting);
        else
            printf("Server %d accepting channel %d.\n\n", sfd, cfd);
        run_handoff *best = run_handoff_least(to, n);
        if (run_handoff_give(best, ch) != 0) {
            printf("Error: %s\n", err_msg());
            continue;
        }
        if (text->passed)
            printf("Server %d: New Channel %d passed connection to handler %d\n\n", sfd, cfd,
                   best->index);
        fflush(stdout);
    }
}

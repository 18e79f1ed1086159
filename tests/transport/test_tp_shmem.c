/* Shared-memory transport: writer (server) and reader (client) in two processes with exact
 * counts; the slow-reader condition produced on purpose and reported; our writer's
 * back-pressure for a reader that reports its position; shutdown; the segment layout of the
 * ETA transport, read by a reader that follows the ETA algorithm to the letter. */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp_testutil.h"

static char key[64];
static int nkeys;

static void new_key(void)
{
    snprintf(key, sizeof(key), "rwftest%d_%d", (int)getpid(), ++nkeys);
}

/* Removes whatever a failed test left in /dev/shm. */
static int cleanup(void **state)
{
    (void)state;
    for (int i = 1; i <= nkeys; i++) {
        char name[128];
        snprintf(name, sizeof(name), "/tr.seg.rwftest%d_%d", (int)getpid(), i);
        shm_unlink(name);
        snprintf(name, sizeof(name), "/tr.mtx.rwftest%d_%d.0", (int)getpid(), i);
        sem_unlink(name);
    }
    return 0;
}

static void shm_opts(tp_opts *o)
{
    tp_opts_init(o);
    o->conn_type = TP_CONN_SHMEM;
    o->port = key;
    o->protocol_type = TP_PROTOCOL_TRANSPORTPERF;
    o->rwf_major = 0;
    o->rwf_minor = 0;
    o->guaranteed_output_buffers = 1000;
    o->max_fragment_size = 256;
}

static tp_channel *writer_up(tp_server **srv, const tp_opts *o)
{
    if (tp_bind(o, srv) != 0)
        fail_msg("bind: %s", err_msg());
    tp_channel *w;
    assert_int_equal(tp_accept(*srv, &w), 1);
    tp_channel *again;
    assert_int_equal(tp_accept(*srv, &again), 0); /* exactly one channel */
    assert_int_equal(tp_init(w), TP_ACTIVE);
    return w;
}

static tp_channel *reader_up(const tp_opts *o)
{
    tp_channel *r;
    if (tp_connect(o, &r) != 0)
        fail_msg("connect: %s", err_msg());
    if (tp_init_wait(r, 5000) != TP_ACTIVE)
        fail_msg("init: %s", err_msg());
    tp_msg m;
    assert_int_equal(tp_read(r, &m), 0); /* the first read takes the starting position */
    return r;
}

/* Writes count sequence-numbered messages of size bytes in bursts, waiting on back-pressure.
 * Returns the number of TP_ENOBUFS seen. */
static int write_msgs(tp_channel *w, uint64_t first, uint64_t count, uint32_t size, int burst)
{
    int nobufs = 0;
    uint64_t seq = first;
    while (seq < first + count) {
        for (int k = 0; k < burst && seq < first + count; k++) {
            tp_buf *b;
            int rc = tp_get_buffer(w, size, false, &b);
            if (rc == TP_ENOBUFS) {
                nobufs++;
                usleep(200);
                break;
            }
            if (rc != 0)
                fail_msg("get_buffer: %s", err_msg());
            memcpy(b->data, &seq, 8);
            memset(b->data + 8, 0, size - 8);
            b->len = size;
            assert_int_equal(tp_write(w, b, 0), 0);
            seq++;
        }
        usleep(100);
    }
    return nobufs;
}

/* Reads until count messages arrived (checking consecutive sequence numbers from first) or
 * the channel fails. Returns how many arrived. */
static uint64_t read_msgs(tp_channel *r, uint64_t first, uint64_t count, int timeout_ms)
{
    uint64_t got = 0;
    uint64_t end = tu_now_ms() + (uint64_t)timeout_ms;
    while (got < count && tu_now_ms() < end) {
        tp_msg m;
        int rc = tp_read(r, &m);
        if (rc < 0)
            return got;
        if (rc & TP_READ_MSG) {
            uint64_t seq;
            memcpy(&seq, m.data, 8);
            if (seq != first + got)
                fail_msg("sequence %llu, expected %llu", (unsigned long long)seq,
                         (unsigned long long)(first + got));
            got++;
        }
    }
    return got;
}

static void test_two_processes_exact(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    /* messages written before the reader attached are not seen by it */
    write_msgs(w, 1000000, 10, 76, 10);
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        tp_opts co;
        shm_opts(&co);
        tp_channel *r;
        if (tp_connect(&co, &r) != 0 || tp_init_wait(r, 5000) != TP_ACTIVE)
            _exit(10);
        tp_info info;
        if (tp_get_info(r, &info) != 0 || info.max_fragment_size != 260 ||
            info.guaranteed_output_buffers != 1000 || strstr(info.component, "rwfperf") == NULL)
            _exit(11);
        tp_msg first;
        if (tp_read(r, &first) != 0) /* takes the starting position: nothing new yet */
            _exit(16);
        if (write(ready[1], "r", 1) != 1)
            _exit(12);
        uint64_t got = 0;
        uint64_t end = tu_now_ms() + 20000;
        while (got < 200000 && tu_now_ms() < end) {
            tp_msg m;
            int rc = tp_read(r, &m);
            if (rc < 0)
                _exit(13);
            if (rc & TP_READ_MSG) {
                uint64_t seq;
                memcpy(&seq, m.data, 8);
                if (seq != got || m.len != 76)
                    _exit(14);
                got++;
            }
        }
        tp_close(r);
        _exit(got == 200000 ? 0 : 15);
    }
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1) {
        int st;
        waitpid(pid, &st, 0);
        fail_msg("reader process failed to start: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    write_msgs(w, 0, 200000, 76, 1000);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("reader process exited with %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    tp_stats s;
    tp_get_stats(w, &s);
    assert_int_equal(s.msgs_written, 200010);
    tp_close(w);
    tp_server_close(srv);
    close(go[0]), close(go[1]), close(ready[0]);
}

/* A reader that stops reading while an ETA-behaving writer (no back-pressure) goes on is
 * disconnected as too slow, with the reason. */
static void test_slow_reader_reported(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    o.shm_flow_ms = 0; /* behave as the ETA writer */
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    tp_channel *r = reader_up(&o);
    write_msgs(w, 0, 100, 76, 100);
    assert_int_equal(read_msgs(r, 0, 100, 2000), 100);
    write_msgs(w, 100, 800, 76, 800); /* more than 3/4 of the 1000 slots */
    assert_int_equal(read_msgs(r, 100, 800, 2000), 0);
    assert_non_null(strstr(err_msg(), "reader lags writer by 800 messages"));
    assert_non_null(strstr(err_msg(), "too slow"));
    assert_int_equal(tp_get_state(r), TP_STATE_CLOSED);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
}

/* The reader starts at its first read, not when it attached: a writer that ran a whole ring
 * ahead while the reader was still starting up does not make it "too slow". */
static void test_start_at_first_read(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    o.shm_flow_ms = 0;
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    tp_channel *r;
    assert_int_equal(tp_connect(&o, &r), 0);
    assert_int_equal(tp_init_wait(r, 5000), TP_ACTIVE);
    write_msgs(w, 0, 1500, 76, 1500); /* more than the 1000 slots */
    tp_msg m;
    assert_int_equal(tp_read(r, &m), 0); /* starts here: nothing new yet */
    write_msgs(w, 1500, 500, 76, 500);
    assert_int_equal(read_msgs(r, 1500, 500, 2000), 500);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
}

/* tp_read_batch() on shared memory: the same messages in the same order as tp_read() gives,
 * the pings between them skipped and counted, at most max at a time; *more is set while
 * copied slots are left and clear with the last; every view of a batch holds its message
 * until the next read; the counts in the statistics are tp_read()'s. */
static void test_batch_reads(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    tp_channel *r = reader_up(&o);
    bool more = true;
    tp_msg ms[7];
    assert_int_equal(tp_read_batch(r, ms, 7, &more), 0); /* nothing written yet */
    assert_false(more);
    /* 20 messages of growing sizes with a ping after the 5th and the 13th */
    for (uint64_t seq = 0; seq < 20; seq++) {
        write_msgs(w, seq, 1, (uint32_t)(8 + seq * 3), 1);
        if (seq == 4 || seq == 12)
            assert_int_equal(tp_ping(w), 0);
    }
    uint64_t got = 0;
    int calls = 0;
    while (got < 20) {
        int n = tp_read_batch(r, ms, 7, &more);
        assert_in_range(n, 1, 7);
        calls++;
        for (int i = 0; i < n; i++) { /* every view still holds its message */
            uint64_t seq;
            memcpy(&seq, ms[i].data, 8);
            assert_int_equal(seq, got + (uint64_t)i);
            assert_int_equal(ms[i].len, 8 + seq * 3);
            for (uint32_t k = 8; k < ms[i].len; k++)
                assert_int_equal(ms[i].data[k], 0);
        }
        got += (uint64_t)n;
        assert_int_equal(more, got < 20);
    }
    assert_int_equal(calls, 3); /* 7 + 7 + 6: one refill copied all 22 slots */
    assert_int_equal(tp_read_batch(r, ms, 7, &more), 0);
    assert_false(more);
    tp_stats st;
    tp_get_stats(r, &st);
    assert_int_equal(st.msgs_read, 20);
    assert_int_equal(st.pings_read, 2);
    uint64_t bytes = 0;
    for (uint64_t seq = 0; seq < 20; seq++)
        bytes += 8 + seq * 3;
    assert_int_equal(st.bytes_read, bytes);
    /* a batch that ends on a ping: the message before it, then nothing and no more */
    write_msgs(w, 20, 1, 76, 1);
    assert_int_equal(tp_ping(w), 0);
    assert_int_equal(tp_read_batch(r, ms, 7, &more), 1);
    assert_false(more);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
}

/* Opens a run of up to want 76-byte messages on w and checks its stride and size; fills the
 * first k (at most run.n) with sequence numbers from *seq and a byte pattern, writes them and
 * advances *seq. Returns run.n. */
static uint32_t run_write_k(tp_channel *w, uint32_t want, uint32_t k, uint64_t *seq)
{
    tp_run run;
    assert_int_equal(tp_run_get(w, 76, want, 0, &run), 0);
    assert_int_equal(run.stride, 272);
    assert_int_equal(run.size, 76);
    assert_in_range(run.n, 1, want);
    if (k > run.n)
        k = run.n;
    uint8_t *p = run.data;
    for (uint32_t i = 0; i < k; i++, p += run.stride) {
        uint64_t v = *seq + i;
        memcpy(p, &v, 8);
        for (uint32_t b = 8; b < 76; b++)
            p[b] = (uint8_t)(v + b);
    }
    assert_int_equal(tp_run_write(w, &run, k, 0), 0);
    *seq += k;
    return run.n;
}

/* Reads count messages, checking each one's length, sequence number from first and bytes
 * (run_write_k's pattern). */
static void read_runs(tp_channel *r, uint64_t first, uint64_t count)
{
    uint64_t got = 0;
    tp_msg ms[64];
    uint64_t end = tu_now_ms() + 2000;
    while (got < count && tu_now_ms() < end) {
        bool more;
        int n = tp_read_batch(r, ms, count - got < 64 ? (int)(count - got) : 64, &more);
        assert_true(n >= 0);
        for (int i = 0; i < n; i++, got++) {
            uint64_t v;
            assert_int_equal(ms[i].len, 76);
            memcpy(&v, ms[i].data, 8);
            assert_int_equal(v, first + got);
            for (uint32_t b = 8; b < 76; b++)
                assert_int_equal(ms[i].data[b], (uint8_t)(v + b));
        }
    }
    assert_int_equal(got, count);
}

/* Runs on the writer: slots written in place, visible together at tp_run_write() (all, some
 * or none of them), a run stopping at SHM_RUN_MAX, at the ring's end and at the room our
 * reader leaves (then TP_ENOBUFS), the refusals. */
static void test_runs(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    o.shm_flow_ms = 60000;
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    tp_channel *r = reader_up(&o);
    tp_msg m;
    bool more;
    uint64_t seq = 0;

    tp_run run;
    assert_int_equal(tp_run_get(w, 76, 1000, 0, &run), 0);
    assert_int_equal(run.n, 64);                                /* SHM_RUN_MAX */
    assert_int_equal(tp_run_get(w, 76, 1, 0, &run), TP_EINVAL); /* one open at a time */
    assert_int_equal(tp_read_batch(r, &m, 1, &more), 0);        /* nothing visible yet */
    assert_int_equal(tp_run_write(w, &run, 65, 0), TP_EINVAL);  /* more than it holds */
    assert_int_equal(tp_run_write(w, &run, 0, 0), 0);           /* given back */
    assert_int_equal(tp_run_write(w, &run, 1, 0), TP_EINVAL);   /* not open any more */
    assert_int_equal(tp_read_batch(r, &m, 1, &more), 0);

    assert_int_equal(run_write_k(w, 1000, 1000, &seq), 64);
    assert_int_equal(run_write_k(w, 10, 10, &seq), 10);
    assert_int_equal(run_write_k(w, 30, 5, &seq), 30); /* 5 of 30 written */
    write_msgs(w, seq, 1, 76, 1);                      /* a single write after a run */
    read_runs(r, 0, seq);
    assert_int_equal(read_msgs(r, seq, 1, 2000), 1);
    seq++;
    assert_int_equal(tp_read_batch(r, &m, 1, &more), 0);

    /* up to 10 slots before the ring's end (1,000 slots): the run stops there, the next one
     * starts at the ring's start */
    while (seq < 990) {
        uint32_t want = 990 - (uint32_t)seq < 64 ? 990 - (uint32_t)seq : 64;
        uint64_t from = seq;
        run_write_k(w, want, want, &seq);
        read_runs(r, from, seq - from);
    }
    uint64_t from = seq;
    assert_int_equal(run_write_k(w, 64, 64, &seq), 10);
    assert_int_equal(run_write_k(w, 64, 64, &seq), 64);
    read_runs(r, from, seq - from);

    /* our reader leaves 750 slots (3/4 of the ring): runs shrink to the room, then
     * TP_ENOBUFS; everything arrives once it reads */
    from = seq;
    uint32_t room = 750, last = 0;
    while (room > 0) {
        last = run_write_k(w, 64, 64, &seq);
        assert_int_equal(last, room < 64 ? room : 64);
        room -= last;
    }
    assert_int_equal(last, 750 % 64);
    assert_int_equal(tp_run_get(w, 76, 1, 0, &run), TP_ENOBUFS);
    assert_non_null(strstr(err_msg(), "ring full"));
    read_runs(r, from, 750);
    assert_int_equal(run_write_k(w, 64, 64, &seq), 64);
    read_runs(r, from + 750, 64);

    tp_stats st;
    tp_get_stats(w, &st);
    assert_int_equal(st.msgs_written, seq);
    assert_int_equal(st.bytes_written, seq * 76);
    tp_get_stats(r, &st);
    assert_int_equal(st.msgs_read, seq);

    /* refusals: sizes, want, a buffer open, the reader's side */
    assert_int_equal(tp_run_get(w, 0, 1, 0, &run), TP_EINVAL);
    assert_int_equal(tp_run_get(w, 300, 1, 0, &run), TP_EINVAL);
    assert_int_equal(tp_run_get(w, 76, 0, 0, &run), TP_EINVAL);
    tp_buf *b;
    assert_int_equal(tp_get_buffer(w, 76, false, &b), 0);
    assert_int_equal(tp_run_get(w, 76, 1, 0, &run), TP_EINVAL);
    assert_int_equal(tp_release(w, b), 0);
    assert_int_equal(tp_run_get(r, 76, 1, 0, &run), TP_EINVAL);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
}

/* Our writer does not run over our reader: a paused reader causes TP_ENOBUFS, not a
 * disconnection; everything arrives once the reader reads again. A reader that stops for
 * longer than shm_flow_ms is no longer waited for. */
static void test_flow_control(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    o.shm_flow_ms = 60000;
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    tp_channel *r = reader_up(&o);
    uint64_t seq = 0;
    int nobufs = 0;
    while (nobufs == 0) {
        tp_buf *b;
        int rc = tp_get_buffer(w, 76, false, &b);
        if (rc == TP_ENOBUFS) {
            nobufs++;
            break;
        }
        assert_int_equal(rc, 0);
        memcpy(b->data, &seq, 8);
        b->len = 76;
        assert_int_equal(tp_write(w, b, 0), 0);
        seq++;
    }
    assert_true(seq >= 700 && seq <= 750);
    assert_non_null(strstr(err_msg(), "ring full"));
    assert_int_equal(read_msgs(r, 0, seq, 2000), seq);

    /* writer and reader take turns: every time the ring is full the writer gets
     * TP_ENOBUFS and the reader catches up; nothing is lost */
    uint64_t first = seq, got = 0;
    int blocked = 0;
    while (seq < first + 20000) {
        tp_buf *b;
        int rc = tp_get_buffer(w, 76, false, &b);
        if (rc == TP_ENOBUFS) {
            blocked++;
            got += read_msgs(r, first + got, seq - first - got, 2000);
            continue;
        }
        assert_int_equal(rc, 0);
        memcpy(b->data, &seq, 8);
        b->len = 76;
        assert_int_equal(tp_write(w, b, 0), 0);
        seq++;
    }
    got += read_msgs(r, first + got, seq - first - got, 2000);
    assert_int_equal(got, 20000);
    assert_true(blocked >= 20000 / 750);
    assert_int_equal(tp_get_state(r), TP_STATE_ACTIVE);
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);

    /* a reader that stops for good is given up after shm_flow_ms */
    new_key();
    shm_opts(&o);
    o.shm_flow_ms = 100;
    w = writer_up(&srv, &o);
    r = reader_up(&o);
    uint64_t t0 = tu_now_ms();
    write_msgs(w, 0, 2000, 76, 500);
    assert_true(tu_now_ms() - t0 >= 100);
    assert_int_equal(read_msgs(r, 0, 2000, 2000), 0);
    assert_non_null(strstr(err_msg(), "too slow"));
    tp_close(r);
    tp_close(w);
    tp_server_close(srv);
}

static void test_shutdown_and_errors(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    tp_channel *r;
    assert_int_equal(tp_connect(&o, &r), TP_EFAIL); /* nothing to attach to */
    assert_non_null(strstr(err_msg(), "no shared-memory server for key"));
    tp_server *srv, *srv2;
    tp_channel *w = writer_up(&srv, &o);
    assert_int_equal(tp_bind(&o, &srv2), TP_EFAIL); /* the key is taken */
    assert_non_null(strstr(err_msg(), "already exists"));
    tp_opts bad = o;
    bad.protocol_type = 0;
    assert_int_equal(tp_connect(&bad, &r), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "protocol type 0 is incompatible with the server's 88"));
    bad = o;
    bad.shm_max_lag = 2000;
    assert_int_equal(tp_connect(&bad, &r), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "exceeds the 1000 buffers"));
    r = reader_up(&o);
    /* the roles are fixed */
    tp_buf *b;
    tp_msg m;
    assert_int_equal(tp_get_buffer(r, 10, false, &b), TP_EINVAL);
    assert_int_equal(tp_read(w, &m), TP_EINVAL);
    assert_int_equal(tp_get_buffer(w, 261, false, &b), TP_EINVAL);
    assert_int_equal(tp_get_buffer(w, 10, true, &b), TP_EINVAL);
    assert_int_equal(tp_get_buffer(w, 10, false, &b), 0);
    tp_buf *b2;
    assert_int_equal(tp_get_buffer(w, 10, false, &b2), TP_ENOBUFS);
    assert_int_equal(tp_release(w, b), 0);
    /* pings */
    assert_int_equal(tp_ping(w), 0);
    int rc;
    uint64_t end = tu_now_ms() + 1000;
    while ((rc = tp_read(r, &m)) == 0 && tu_now_ms() < end)
        ;
    assert_int_equal(rc & TP_READ_PING, TP_READ_PING);
    /* the server goes away: the reader drains what is left, then learns it */
    write_msgs(w, 0, 5, 76, 5);
    tp_close(w);
    tp_server_close(srv);
    assert_int_equal(read_msgs(r, 0, 5, 1000), 5);
    assert_int_equal(tp_read(r, &m), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "provider terminated"));
    tp_close(r);
    /* the names are gone */
    char path[128];
    snprintf(path, sizeof(path), "/dev/shm/tr.seg.%s", key);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(path, sizeof(path), "/dev/shm/sem.tr.mtx.%s.0", key);
    assert_int_equal(access(path, F_OK), -1);
}

/* The segment as ETA lays it out, and a reader that follows the ETA algorithm exactly
 * (read seqNumServer, copy the slot, re-check) reading what our writer wrote. */
static void test_eta_layout_and_reader(void **state)
{
    (void)state;
    new_key();
    tp_opts o;
    shm_opts(&o);
    o.ping_timeout = 30;
    tp_server *srv;
    tp_channel *w = writer_up(&srv, &o);
    char name[128];
    snprintf(name, sizeof(name), "/tr.seg.%s", key);
    int fd = shm_open(name, O_RDWR, 0);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    uint8_t *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    assert_true(base != MAP_FAILED);
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    memcpy(&u64, base + 0, 8), assert_int_equal(u64, 0x12FE68BA);
    memcpy(&u16, base + 8, 2), assert_int_equal(u16, (uint16_t)getpid());
    memcpy(&u16, base + 10, 2), assert_int_equal(u16, 40);
    memcpy(&u64, base + 16, 8), assert_int_equal(u64, (uint64_t)st.st_size);
    memcpy(&u16, base + 40, 2), assert_int_equal(u16, 1);
    memcpy(&u16, base + 42, 2), assert_int_equal(u16, 0x01 | 0x04); /* pings, initialised */
    memcpy(&u32, base + 44, 4), assert_int_equal(u32, 30);
    memcpy(&u32, base + 52, 4), assert_int_equal(u32, 88);
    assert_int_equal(base[64], strlen(base + 65 > base ? (const char *)base + 65 : ""));
    uint64_t start, end, write_off;
    uint32_t slot, n;
    memcpy(&start, base + 336, 8);
    memcpy(&end, base + 344, 8);
    memcpy(&write_off, base + 352, 8);
    memcpy(&slot, base + 368, 4);
    memcpy(&n, base + 372, 4);
    assert_int_equal(start, 376);
    assert_int_equal(slot, (12 + 256 + 7) & ~7u); /* 272 */
    assert_int_equal(n, 1000);
    assert_int_equal(end, 376 + 1000 * 272);
    assert_int_equal((uint64_t)st.st_size, end);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&u16, base + start + (uint64_t)i * slot + 2, 2);
        assert_int_equal(u16, slot - 12);
    }
    /* ETA reader: attach = copy seqNumServer and the write offset */
    volatile uint64_t *seq_server = (volatile uint64_t *)(base + 328);
    uint64_t seq_client = *seq_server, read_off = write_off;
    uint64_t got = 0;
    while (got < 3000) {
        write_msgs(w, got, 500, 76, 500);
        for (int k = 0; k < 500; k++) {
            uint64_t lag = *seq_server - seq_client;
            assert_true(lag > 0 && lag <= 750);
            uint8_t copy[300];
            memcpy(&u16, base + read_off, 2);
            memcpy(copy, base + read_off, u16 + 12u);
            assert_true(*seq_server - seq_client <= n - 1);
            assert_int_equal(u16, 76);
            memcpy(&u64, copy + 8, 8);
            assert_int_equal(u64, got);
            got++;
            seq_client++;
            read_off += slot;
            if (read_off >= end)
                read_off = start;
        }
    }
    /* an ETA reader never reports its position, so our writer applies no back-pressure:
     * it writes a whole ring and more */
    memcpy(&u32, base + 48, 4);
    assert_int_equal(u32, 0);
    assert_int_equal(write_msgs(w, 3000, 2000, 76, 2000), 0);
    munmap(base, (size_t)st.st_size);
    tp_close(w);
    tp_server_close(srv);
}

/* A segment laid out by hand as the ETA writer lays it out (not by our writer), written
 * the ETA way (slot, then seqNumServer and write under the lock), read by our reader. */
static void test_reader_of_foreign_segment(void **state)
{
    (void)state;
    new_key();
    char seg[128], mtx[128];
    snprintf(seg, sizeof(seg), "/tr.seg.%s", key);
    snprintf(mtx, sizeof(mtx), "/tr.mtx.%s.0", key);
    const uint32_t slot = 6160, n = 64;
    size_t len = 376 + (size_t)slot * n;
    sem_t *sm = sem_open(mtx, O_CREAT | O_EXCL | O_RDWR, 0666, 1);
    assert_true(sm != SEM_FAILED);
    int fd = shm_open(seg, O_CREAT | O_EXCL | O_RDWR, 0666);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)len), 0);
    uint8_t *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    memset(b, 0, len);
    uint64_t v64 = 0x12FE68BA, start = 376, end = 376 + (uint64_t)slot * n, w = start + 5 * slot;
    uint16_t v16;
    uint32_t v32;
    memcpy(b, &v64, 8);
    v16 = 40, memcpy(b + 10, &v16, 2);
    memcpy(b + 16, &len, 8);
    v16 = 1, memcpy(b + 40, &v16, 2);
    v16 = 0x04, memcpy(b + 42, &v16, 2); /* initialised, no pings */
    v32 = 60, memcpy(b + 44, &v32, 4);
    v32 = 0, memcpy(b + 52, &v32, 4); /* RWF */
    v32 = 14, memcpy(b + 56, &v32, 4);
    v32 = 1, memcpy(b + 60, &v32, 4);
    const char *comp = "eta3.6.5.G1.linux.rrg 64-bit Static";
    b[64] = (uint8_t)strlen(comp);
    memcpy(b + 65, comp, strlen(comp));
    pthread_spinlock_t *lock = (pthread_spinlock_t *)(b + 320);
    pthread_spin_init(lock, PTHREAD_PROCESS_SHARED);
    v64 = 5, memcpy(b + 328, &v64, 8); /* five messages were written before we came */
    memcpy(b + 336, &start, 8);
    memcpy(b + 344, &end, 8);
    memcpy(b + 352, &w, 8);
    memcpy(b + 360, &start, 8);
    memcpy(b + 368, &slot, 4);
    memcpy(b + 372, &n, 4);
    tp_opts o;
    tp_opts_init(&o);
    o.conn_type = TP_CONN_SHMEM;
    o.port = key;
    tp_channel *r = reader_up(&o);
    tp_info info;
    assert_int_equal(tp_get_info(r, &info), 0);
    assert_string_equal(info.component, comp);
    assert_int_equal(info.max_fragment_size, slot - 12);
    for (uint64_t i = 0; i < 200; i++) { /* wraps the 64-slot ring three times */
        uint8_t *s = b + w;
        uint16_t l = 100 + (uint16_t)i;
        memcpy(s, &l, 2);
        memset(s + 4, 0, 4);
        memset(s + 8, (int)i, l);
        w += slot;
        if (w >= end)
            w = start;
        pthread_spin_lock(lock);
        memcpy(&v64, b + 328, 8);
        v64++;
        memcpy(b + 328, &v64, 8);
        memcpy(b + 352, &w, 8);
        pthread_spin_unlock(lock);
        tp_msg m;
        assert_int_equal(tu_read(r, &m, 1000), 1);
        assert_int_equal(m.len, l);
        assert_int_equal(m.data[0], (uint8_t)i);
        assert_int_equal(m.data[l - 1], (uint8_t)i);
    }
    /* a slot length beyond the slot is refused, not followed */
    uint16_t huge = 60000;
    memcpy(b + w, &huge, 2);
    pthread_spin_lock(lock);
    memcpy(&v64, b + 328, 8);
    v64++;
    memcpy(b + 328, &v64, 8);
    pthread_spin_unlock(lock);
    tp_msg m;
    assert_int_equal(tu_read(r, &m, 1000), TP_EFAIL);
    assert_non_null(strstr(err_msg(), "corrupt shared-memory slot"));
    tp_close(r);
    munmap(b, len);
    shm_unlink(seg);
    sem_close(sm);
    sem_unlink(mtx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_processes_exact),
        cmocka_unit_test(test_slow_reader_reported),
        cmocka_unit_test(test_start_at_first_read),
        cmocka_unit_test(test_batch_reads),
        cmocka_unit_test(test_flow_control),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_shutdown_and_errors),
        cmocka_unit_test(test_eta_layout_and_reader),
        cmocka_unit_test(test_reader_of_foreign_segment),
    };
    return cmocka_run_group_tests(tests, NULL, cleanup);
}

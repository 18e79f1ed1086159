/*
 * Shared-memory transport, internals shared by its two files: tp_shm.c (the segment, the
 * server that creates it and the client that attaches, closing) and tp_shm_io.c (reading and
 * writing messages). The layout is the ETA unidirectional shmem transport's on x86-64 Linux
 * with glibc (docs/wire.md#shared-memory); tp_shm.c's opening comment tells how reader and writer
 * meet.
 */
#ifndef RWFPERF_TP_SHM_INT_H
#define RWFPERF_TP_SHM_INT_H

#include "tp_int.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_MAGIC 0x12FE68BAul
#define SHM_VERSION 1
#define SHM_F_PING 0x01     /* server pings enabled */
#define SHM_F_SHUTDOWN 0x02 /* the server shut down */
#define SHM_F_INIT 0x04     /* the server's channel is initialised */
#define SLOT_F_PACKED 0x01
#define SLOT_F_PING 0x02
#define SLOT_HDR 12 /* sizeof the ETA slot header struct on x86-64 */
#define SLOT_DATA 8 /* offset of the payload in a slot */
#define READER_MARK 0x80000000u
/* Most slots in one run (tp_shm_run_get): the run's messages become visible together, so the
 * first waits for the filling of the others (64 x 76 bytes: well under a microsecond). */
#define SHM_RUN_MAX 64u

typedef struct shm_hdr {
    uint64_t magic;          /* 0 */
    uint16_t creator_pid;    /* 8 */
    uint16_t header_len;     /* 10: 40 */
    uint32_t pad0;           /* 12 */
    uint64_t total_len;      /* 16 */
    uint64_t free_offset;    /* 24 */
    uint64_t name_ptr;       /* 32: the creator's private pointer */
    uint16_t version;        /* 40 */
    uint16_t flags;          /* 42 */
    uint32_t ping_timeout;   /* 44 */
    uint32_t byte_written;   /* 48: our readers' position (see above) */
    uint32_t protocol_type;  /* 52 */
    uint32_t major;          /* 56 */
    uint32_t minor;          /* 60 */
    uint8_t comp_len;        /* 64 */
    char comp[255];          /* 65 */
    pthread_spinlock_t lock; /* 320 */
    uint32_t pad1;           /* 324 */
    uint64_t seq;            /* 328: seqNumServer */
    uint64_t cb_start;       /* 336: circular buffer, offsets from the segment base */
    uint64_t cb_end;         /* 344 */
    uint64_t cb_write;       /* 352 */
    uint64_t cb_read;        /* 360 */
    uint32_t slot_size;      /* 368: maxBufSize */
    uint32_t num_slots;      /* 372: numBuffers */
} shm_hdr;                   /* slots follow at 376 */

_Static_assert(sizeof(pthread_spinlock_t) == 4, "glibc spinlock word");
_Static_assert(offsetof(shm_hdr, version) == 40, "layout");
_Static_assert(offsetof(shm_hdr, byte_written) == 48, "layout");
_Static_assert(offsetof(shm_hdr, comp) == 65, "layout");
_Static_assert(offsetof(shm_hdr, lock) == 320, "layout");
_Static_assert(offsetof(shm_hdr, seq) == 328, "layout");
_Static_assert(offsetof(shm_hdr, cb_start) == 336, "layout");
_Static_assert(offsetof(shm_hdr, num_slots) == 372, "layout");
_Static_assert(sizeof(shm_hdr) == 376, "layout");

/* A mapping, shared by a server and the channel it accepted (either may be closed first). */
typedef struct tp_shm_seg {
    atomic_int refs;
    uint8_t *base;
    size_t len;
    sem_t *mtx;
    int owner; /* created the names: removes them when the server closes */
    char seg_name[300];
    char mtx_name[300];
} tp_shm_seg;

struct tp_shm_srv {
    tp_shm_seg *seg;
    int pipe_w; /* the server fd (read end) holds one byte until the one accept */
    int accepted;
};

struct tp_shm_chan {
    tp_shm_seg *seg;
    shm_hdr *h;
    int writer;
    int pipe_w; /* write end of the always-readable pipe behind ch->fd */
    uint64_t start, end;
    uint32_t slot_size, nslots, max_len;
    /* writer */
    uint64_t wseq, woff;
    uint32_t flow_limit, flow_pos, flow_word, flow_stuck;
    uint64_t flow_since_ns;
    /* reader */
    int started; /* position taken (at the first read) */
    uint64_t rseq, roff, max_lag;
    uint32_t last_mark;
    uint8_t *batch;
    uint32_t batch_cap, b_rd, b_wr;
};

#endif

/* Shared-memory transport (ETA unidirectional shmem). */
#include "tp_int.h"

static int not_yet(void)
{
    return err_set("shared-memory connections (-connType shmem) are not available in this "
                   "build yet");
}

int tp_shm_bind(tp_server *s)
{
    (void)s;
    return not_yet();
}

int tp_shm_accept(tp_server *s, tp_channel **out)
{
    (void)s;
    *out = NULL;
    return not_yet();
}

void tp_shm_server_close(tp_server *s)
{
    (void)s;
}

int tp_shm_connect(tp_channel *ch)
{
    (void)ch;
    return not_yet();
}

int tp_shm_init(tp_channel *ch)
{
    not_yet();
    return tp_chan_fail(ch);
}

int tp_shm_read(tp_channel *ch, tp_msg *msg)
{
    (void)msg;
    not_yet();
    return tp_chan_fail(ch);
}

int tp_shm_get_buffer(tp_channel *ch, uint32_t size, bool packed, tp_buf **out)
{
    (void)ch, (void)size, (void)packed, (void)out;
    return not_yet();
}

int tp_shm_write(tp_channel *ch, tp_buf *b, unsigned flags)
{
    (void)ch, (void)b, (void)flags;
    return not_yet();
}

int tp_shm_release(tp_channel *ch, tp_buf *b)
{
    (void)ch, (void)b;
    return not_yet();
}

int tp_shm_flush(tp_channel *ch)
{
    (void)ch;
    return 0;
}

int tp_shm_ping(tp_channel *ch)
{
    (void)ch;
    return not_yet();
}

void tp_shm_close(tp_channel *ch)
{
    (void)ch;
}

void tp_shm_info(const tp_channel *ch, tp_info *out)
{
    (void)ch, (void)out;
}

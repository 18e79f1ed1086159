/* Compression for RIPC: one persistent zlib stream per direction (zlib-wrapped, Z_SYNC_FLUSH
 * per frame), or independent raw lz4 blocks. */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

uint32_t tp_comp_bound(const tp_channel *ch, uint32_t n)
{
    if (ch->comp_out == TP_COMP_LZ4)
        return (uint32_t)LZ4_compressBound((int)n);
    /* stored blocks cost 5 bytes per 16 KiB at worst, the sync flush marker 5 and the zlib
     * header 2: this bound is deflateBound's plus the flush, with room to spare */
    return n + (n >> 12) + (n >> 14) + (n >> 25) + 32;
}

/* Largest payload that is sure to compress into a frame whose header is hdr bytes. */
static uint32_t comp_max(const tp_channel *ch, uint32_t hdr)
{
    uint32_t limit = ch->max_user + 3 - hdr;
    uint32_t n = ch->max_user;
    while (n > 0 && tp_comp_bound(ch, n) > limit)
        n--;
    return n;
}

int tp_comp_start(tp_channel *ch)
{
    if (ch->comp_out == TP_COMP_ZLIB) {
        memset(&ch->zout, 0, sizeof(ch->zout));
        if (deflateInit(&ch->zout, ch->zlevel) != Z_OK)
            return err_set("deflateInit(level %u) failed", ch->zlevel);
        ch->zout_ok = 1;
    }
    if (ch->comp_in == TP_COMP_ZLIB) {
        memset(&ch->zin, 0, sizeof(ch->zin));
        if (inflateInit(&ch->zin) != Z_OK)
            return err_set("inflateInit failed");
        ch->zin_ok = 1;
    }
    if (ch->comp_in) {
        /* a peer may send up to the 65535 the ack allowed, though we write at most 65532 */
        uint32_t lim = ch->max_user >= 0xFFFF - 3 ? 0xFFFF : ch->max_user;
        ch->dec_cap = lim + 64;
        ch->dec = malloc(ch->dec_cap);
        if (ch->comp_in == TP_COMP_LZ4) {
            ch->lz_cap = 2 * 65536;
            ch->lz_tmp = malloc(ch->lz_cap);
        }
        if (!ch->dec || (ch->comp_in == TP_COMP_LZ4 && !ch->lz_tmp))
            return err_set("out of memory for decompression buffers");
    }
    if (ch->comp_out) {
        ch->comp_threshold = ch->comp_out == TP_COMP_ZLIB ? 30 : 300;
        uint32_t idb = ch->frag_id_bytes;
        ch->comp_max[0] = comp_max(ch, 3);
        ch->comp_max[1] = comp_max(ch, 4 + 4 + idb);
        ch->comp_max[2] = comp_max(ch, 4 + idb);
        /* fragments are cut so that every one of them can be compressed */
        if (ch->comp_max[1] > 0 && ch->comp_max[2] > 0) {
            ch->frag_first = ch->comp_max[1];
            ch->frag_sub = ch->comp_max[2];
        }
    }
    return 0;
}

void tp_comp_stop(tp_channel *ch)
{
    if (ch->zout_ok)
        deflateEnd(&ch->zout);
    if (ch->zin_ok)
        inflateEnd(&ch->zin);
    ch->zout_ok = ch->zin_ok = 0;
}

int tp_compress(tp_channel *ch, const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t cap)
{
    if (ch->comp_out == TP_COMP_LZ4) {
        int r = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        return r > 0 ? r : 0;
    }
    z_stream *z = &ch->zout;
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = n;
    z->next_out = dst;
    z->avail_out = cap;
    int rc = deflate(z, Z_SYNC_FLUSH);
    if (rc != Z_OK || z->avail_in != 0 || z->avail_out == 0)
        return err_set("deflate of %u bytes into %u failed (zlib %d)", n, cap, rc);
    return (int)(cap - z->avail_out);
}

int tp_inflate(tp_channel *ch, const uint8_t *src, uint32_t n)
{
    z_stream *z = &ch->zin;
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = n;
    z->next_out = ch->dec + ch->dec_len;
    z->avail_out = ch->dec_cap - ch->dec_len;
    int rc = inflate(z, Z_SYNC_FLUSH);
    if (rc == Z_STREAM_END) {
        inflateReset(z);
    } else if (rc != Z_OK) {
        return err_set("zlib inflate failed (%d%s%s)", rc, z->msg ? ": " : "",
                       z->msg ? z->msg : "");
    }
    if (z->avail_out == 0)
        return err_set("decompressed frame exceeds %u bytes", ch->dec_cap - 64);
    if (z->avail_in != 0)
        return err_set("zlib left %u of %u compressed bytes unused", z->avail_in, n);
    ch->dec_len = ch->dec_cap - z->avail_out;
    return 0;
}

int tp_lz4_decompress(tp_channel *ch, const uint8_t *src, uint32_t n)
{
    int r = LZ4_decompress_safe((const char *)src, (char *)ch->dec + ch->dec_len, (int)n,
                                (int)(ch->dec_cap - 64 - ch->dec_len));
    if (r < 0)
        return err_set("corrupt lz4 block of %u bytes (or it decompresses to more than %u)", n,
                       ch->dec_cap - 64);
    ch->dec_len += (uint32_t)r;
    return 0;
}

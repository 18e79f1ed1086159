/*
 * rx_wsb: warm standby on a watchlist consumer channel (docs/modes.md#warm-standby). The tool makes
 * one channel per server and says which is active; the layer tells each server its role with the
 * generic message of the mode, when the session reaches the point where the original sends it
 * (login based: right after the login refresh, before the directory request; service based:
 * after each directory refresh, one message per service) and whenever the tool changes the
 * role (promotion of the standby when the active server is lost).
 */
#include "rx_int.h"
#include "rx_wl.h"

#include "err.h"

#define RX_WSB_LOGIN_STREAM 1
#define RX_WSB_DIRECTORY_STREAM 2

/* Sends ConsumerConnectionStatus with the channel's role. */
static int send_conn_status(rx_chan *ch)
{
    rwf_enc e;
    rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
    size_t n;
    if (rwf_rdm_wsb_conn_status(&e, RX_WSB_LOGIN_STREAM,
                                ch->a.wsb_standby ? RWF_WSB_STANDBY : RWF_WSB_ACTIVE) < 0 ||
        rwf_enc_finish(&e, &n) != RWF_OK)
        return err_push("encoding ConsumerConnectionStatus");
    if (rx_out_bytes(ch, ch->r->scratch, (uint32_t)n) < 0)
        return err_push("sending ConsumerConnectionStatus");
    rx_chan_publish(ch);
    return 0;
}

/* Sends ConsumerStatus with the channel's role for every service the directory holds. */
static int send_consumer_status(rx_chan *ch)
{
    rx_wl *wl = ch->a.wl;
    for (int i = 0; i < RX_WL_MAX_SERVICES; i++) {
        if (!wl->svc[i].present)
            continue;
        rwf_enc e;
        rwf_enc_init(&e, ch->r->scratch, RX_SCRATCH);
        size_t n;
        if (rwf_rdm_wsb_consumer_status(&e, RX_WSB_DIRECTORY_STREAM, wl->svc[i].id,
                                        ch->a.wsb_standby ? RWF_WSB_STANDBY : RWF_WSB_ACTIVE) < 0 ||
            rwf_enc_finish(&e, &n) != RWF_OK)
            return err_push("encoding ConsumerStatus");
        if (rx_out_bytes(ch, ch->r->scratch, (uint32_t)n) < 0)
            return err_push("sending ConsumerStatus for service %u", wl->svc[i].id);
    }
    rx_chan_publish(ch);
    return 0;
}

int rx_wsb_after_login(rx_chan *ch)
{
    return ch->role.wsb_mode == RX_WSB_LOGIN ? send_conn_status(ch) : 0;
}

int rx_wsb_after_directory(rx_chan *ch, const rwf_msg *m)
{
    if (ch->role.wsb_mode != RX_WSB_SERVICE || m->msg_class != RWF_MC_REFRESH)
        return 0;
    return send_consumer_status(ch);
}

int rx_wsb_set_role(rx_chan *ch, bool standby)
{
    if (!ch->role.wsb_mode || !ch->a.wl)
        return err_set("not a warm-standby channel");
    ch->a.wsb_standby = standby;
    if (ch->a.state != RXA_UP || !ch->a.wl->logged_in)
        return 0; /* told when its session reaches that point */
    return ch->role.wsb_mode == RX_WSB_LOGIN ? send_conn_status(ch) : send_consumer_status(ch);
}

bool rx_wsb_is_standby(const rx_chan *ch)
{
    return ch->a.wsb_standby;
}

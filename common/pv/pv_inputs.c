#include "pv_inputs.h"

#include "err.h"
#include "pv_admin.h"
#include "run_host.h"
#include "run_setup.h"

int pv_inputs_load(pv_inputs *in, const pv_config *pv, pv_generic_rates gen, uint64_t open_limit)
{
    in->content = pv_content_start(&in->dict, &in->feed, pv);
    if (!in->content)
        return -1;
    const pv_feed *f = &in->feed;
    if (gen.rate > 0)
        for (int d = 0; d < PV_DOMS; d++)
            if (f->dom[d].present && !f->dom[d].n_generics)
                return err_set("%s: -genericMsgRate needs generic messages (genMsg) for %s",
                               pv->opts.msg_file, d == PV_DOM_MP ? "MarketPrice" : "MarketByOrder");
    pv_rates *r = &in->rates;
    r->generics = (uint64_t)gen.rate;
    uint64_t seed = lra_time_seed();
    if (pv_rates_updates(r, &in->upd_lra, pv, seed) != 0)
        return -1;
    bool stamped;
    if (run_stamps(&in->gen_lra, &stamped, gen.rate, gen.latency_rate, pv->opts.tick_rate,
                   seed + 1) != 0)
        return err_push("Config Error: -genericMsgLatencyRate");
    r->gen_lat = stamped ? &in->gen_lra : NULL;
    pv_admin_service(&in->service, pv->opts.service_name, (uint16_t)pv->service_id, f, open_limit);
    run_host_position(in->position, sizeof(in->position), "localhost");
    return 0;
}

void pv_inputs_free(pv_inputs *in)
{
    pv_content_free(in->content);
    in->content = NULL;
    rwf_dict_free(in->dict);
    in->dict = NULL;
    if (in->rates.upd_lat)
        lra_free(&in->upd_lra);
    if (in->rates.gen_lat)
        lra_free(&in->gen_lra);
    in->rates.upd_lat = in->rates.gen_lat = NULL;
}

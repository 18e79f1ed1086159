/*
 * rwf_fids: field ids of the standard RDM dictionary that the tools give a meaning of their
 * own, defined once: the time trackers that carry latency stamps (docs/wire.md#latency-stamps).
 *
 *   TIM_TRK_1  updates: the provider's send time; generic messages: the scheduled send time
 *   TIM_TRK_2  posts: the poster's send time
 *   TIM_TRK_3  generic messages: the send time; updates and posts: the scheduled send time
 */
#ifndef RWFPERF_RWF_FIDS_H
#define RWFPERF_RWF_FIDS_H

#define RWF_FID_TIM_TRK_1 3902
#define RWF_FID_TIM_TRK_2 3903
#define RWF_FID_TIM_TRK_3 3904

/* The key field of the MarketByOrder maps the tools publish. */
#define RWF_FID_ORDER_ID 3426

#endif

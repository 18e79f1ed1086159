/*
 * rwf: the RWF codec in one include — types, wire forms, values and their text, primitives,
 * set definitions, container encoder and decoders, messages, payloads of pre-encoded entries,
 * dictionary, RDM messages. See each header for its contracts.
 */
#ifndef RWFPERF_RWF_H
#define RWFPERF_RWF_H

#include "err.h"
#include "rwf_types.h"
#include "rwf_wire.h"
#include "rwf_value.h"
#include "rwf_text.h"
#include "rwf_prim.h"
#include "rwf_set.h"
#include "rwf_dec.h"
#include "rwf_enc.h"
#include "rwf_msg.h"
#include "rwf_pre.h"
#include "rwf_dict.h"
#include "rwf_rdm.h"

#endif

/*
 * rjs_rmsg: what the message reader's two parts share (rjs_rhdr.c reads the header members of
 * each class, rjs_rmsg.c drives a message and the frame). Internal.
 */
#ifndef RWFPERF_RJS_RMSG_H
#define RWFPERF_RJS_RMSG_H

#include "rjs_rd.h"

/* The members of a message object (ids of the keys table). */
enum {
    K_ID,
    K_TYPE,
    K_DOMAIN,
    K_KEY,
    K_REQKEY,
    K_STATE,
    K_QOS,
    K_WORSTQOS,
    K_STREAMING,
    K_KEYINUPDATES,
    K_CONFINFOINUPDATES,
    K_REFRESH,
    K_PRIVATE,
    K_QUALIFIED,
    K_PAUSE,
    K_PRIORITY,
    K_VIEW,
    K_VIEWTYPE,
    K_EXTHDR,
    K_COMPLETE,
    K_CLEARCACHE,
    K_DONOTCACHE,
    K_POSTUSERINFO,
    K_PARTNUMBER,
    K_PERMDATA,
    K_SEQNUMBER,
    K_SOLICITED,
    K_UPDATETYPE,
    K_DONOTCONFLATE,
    K_DONOTRIPPLE,
    K_DISCARDABLE,
    K_CONFLATIONINFO,
    K_ACK,
    K_ACKID,
    K_NAKCODE,
    K_TEXT,
    K_SECSEQNUMBER,
    K_POSTID,
    K_POSTUSERRIGHTS,
    K_DEBUG,
    K_COUNT
};

/* The member id of a message key ("Type" -> K_TYPE), or -1. */
int rjs_key_id(const rjs_str *k);

/* The name of member id k. */
const char *rjs_key_name(int k);

/* The members a message of class cls (RWF_MC_*) accepts, as bits 1 << K_*. */
uint64_t rjs_keys_allowed(int cls);

/* A message object as read: where each member's value is. */
typedef struct msg_in {
    const rjs_lex *lx; /* the text (base and end) */
    const char *start; /* the object */
    const char *at[K_COUNT];
    const char *payload; /* the payload's value, and its container type */
    int ptype;
} msg_in;

/* What reading a key gives besides the rwf_key: positions of its attribute and batch names. */
typedef struct key_extra {
    const char *attrib; /* "Elements" value */
    const char *names;  /* "Name":[...] (batch) */
} key_extra;

/* A message being encoded: its header and what follows the header. */
typedef struct msg_out {
    rwf_msg m;
    key_extra kx;          /* the Key's attribute and batch names */
    const char *view;      /* "View":[...] */
    int view_type;         /* 1: field ids, 2: element names */
    const char *close_ids; /* "ID":[...] of a batch close */
} msg_out;

/* Reads the header members of a message of class m->msg_class (m->domain and m->stream_id set)
 * into o: flags, key, state, QoS... Strings decoded into the tail. */
int rjs_h_class(rjs_rd *rd, const msg_in *in, msg_out *o);

#endif

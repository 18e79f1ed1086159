/*
 * rjs_names: the names rssl.json.v2 gives RWF numbers — message classes ("Refresh"), domains
 * ("MarketByOrder"), stream and data states, state codes, QoS timeliness and rate, update
 * types, NAK codes, data types ("UInt", "FieldList"), entry actions, key name types. Internal
 * to the JSON converter.
 *
 * Each table maps values to names both ways. rjs_name() gives the name of a value or NULL when
 * the value has none (the writer then writes the number, as the original does); rjs_value()
 * gives the value of a name, or -1.
 */
#ifndef RWFPERF_RJS_NAMES_H
#define RWFPERF_RJS_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct rjs_name_ent {
    int value;
    const char *name;
    uint8_t len;
} rjs_name_ent;

typedef struct rjs_names {
    const rjs_name_ent *ents;
    unsigned count;
    const char *what; /* for error text: "message class", "domain" ... */
} rjs_names;

extern const rjs_names rjs_msg_classes, rjs_domains, rjs_stream_states, rjs_data_states,
    rjs_state_codes, rjs_timeliness, rjs_rates, rjs_update_types, rjs_nak_codes, rjs_data_types,
    rjs_map_actions, rjs_filter_actions, rjs_vector_actions, rjs_login_name_types,
    rjs_instrument_name_types;

/* The entry of value in t, or NULL. */
const rjs_name_ent *rjs_name(const rjs_names *t, int value);

/* The value named s[0..len) in t, or -1. */
int rjs_value(const rjs_names *t, const char *s, size_t len);

/* The JSON key that holds a container of type (full id) in a message or entry ("Fields",
 * "Elements", "FilterList", "Map", "Vector", "Series", "Message", "Opaque", "Xml", "Json"), or
 * NULL for a type with no JSON form. */
const char *rjs_container_key(int type);

/* The container type (full id) a JSON key names, or -1. */
int rjs_container_of_key(const char *s, size_t len);

#endif

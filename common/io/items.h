/*
 * items: the item list file (docs/tools.md#item-list) and how its items are shared among
 * threads (docs/tools.md#threads-and-items).
 *
 *     <itemList>
 *         <item domain="MarketPrice" name="RDT1" post="true" generic="true"/>
 *         <item domain="MarketPrice" name="RDT2" snapshot="true"/>
 *     </itemList>
 *
 * domain (MarketPrice, or MarketByOrder) and name (1 to 255 bytes) are required; post,
 * generic (also spelt genMsg, as the guides write it) and snapshot are "true" or "false",
 * default false; an item cannot be both snapshot and post, nor snapshot and generic. Other
 * attributes are ignored; any element other than <itemList> at the root and <item> inside it
 * is an error. Only the first `need` items are read (the rest of the file is not looked at),
 * and a file with fewer is an error saying how many it has and how many are needed. Every
 * error names the file and line.
 */
#ifndef RWFPERF_ITEMS_H
#define RWFPERF_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RDM domain types of the items. */
#define ITEMS_DOMAIN_MARKET_PRICE 6
#define ITEMS_DOMAIN_MARKET_BY_ORDER 7

#define ITEMS_NAME_MAX 255

typedef struct item_def {
    const char *name; /* NUL-terminated; points into the list's own storage */
    uint16_t name_len;
    uint8_t domain; /* ITEMS_DOMAIN_* */
    bool post;
    bool generic;
    bool snapshot;
} item_def;

typedef struct items {
    item_def *v;
    size_t count;         /* items read (== need on success) */
    size_t post_count;    /* of those, post-enabled */
    size_t generic_count; /* of those, generic-message-enabled */
    char *names;          /* storage of all names */
} items;

/* Reads the first `need` items (need >= 1) of the file at path into out, which the caller
 * frees with items_free() on success (nothing to free on failure). Returns 0, or -1 with
 * err_msg() set ("350k.xml:12: item 'RDT9' is set for both post and snapshot"). */
int items_load(items *out, const char *path, size_t need);

/* The same, reading the list from len bytes at buf; `name` stands for the file in messages. */
int items_parse(items *out, const char *name, const char *buf, size_t len, size_t need);

/* Frees what items_load() or items_parse() allocated. */
void items_free(items *l);

/* A thread's share of the items (docs/tools.md#threads-and-items, ConsPerf and NIProvPerf): the
 * common items [0, common) that every thread uses, then its own contiguous range [first, first +
 * count - common) of the list. */
typedef struct items_share {
    size_t count;  /* items this thread uses, the common ones included */
    size_t common; /* the first `common` items of the list */
    size_t first;  /* list index where its own items start */
} items_share;

/* Computes thread `index`'s share (0-based) when item_count items (each thread's count
 * including the common ones) are spread over `threads` threads: item_count / threads each,
 * one more for the first item_count % threads threads; thread 0's own items start at index
 * `common`, each next thread's right after the previous one's. Returns 0, or -1 with
 * err_msg() set when threads is 0, index >= threads, or common exceeds the smallest share. */
int items_split(size_t item_count, size_t common, size_t threads, size_t index, items_share *out);

/* Items the list must hold for that split: item_count - common * (threads - 1). */
size_t items_needed(size_t item_count, size_t common, size_t threads);

/* Checks -commonItemCount against the items each of `threads` connections gets. Returns 0, or
 * -1 with the "Config Error: ..." text set. */
int items_check_common(int item_count, int common, int threads);

#endif

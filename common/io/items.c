#include "items.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if LIBXML_VERSION >= 21200
#define XML_ERR_CONST const
#else
#define XML_ERR_CONST
#endif

/* The first error libxml2 reports while reading, with its line. */
typedef struct xml_fault {
    bool set;
    int line;
    char text[300];
} xml_fault;

static void on_xml_error(void *arg, XML_ERR_CONST xmlError *e)
{
    xml_fault *f = arg;
    if (f->set || !e || e->level < XML_ERR_ERROR)
        return;
    f->set = true;
    f->line = e->line;
    snprintf(f->text, sizeof(f->text), "%s", e->message ? e->message : "XML error");
    size_t n = strlen(f->text);
    while (n > 0 && (f->text[n - 1] == '\n' || f->text[n - 1] == ' '))
        f->text[--n] = '\0';
}

/* Growing storage for the names; items keep offsets until the end, when the storage stops
 * moving and the offsets become pointers. */
typedef struct loader {
    const char *path;
    items *out;
    size_t need;
    size_t vcap; /* items out->v and name_off have room for */
    size_t cap;  /* bytes of names */
    size_t used;
    char *names;
    size_t *name_off; /* where each item's name starts in names */
} loader;

static int parse_bool(const char *path, int line, const char *attr, const char *value, bool *out)
{
    if (strcmp(value, "true") == 0)
        *out = true;
    else if (strcmp(value, "false") == 0)
        *out = false;
    else
        return err_set("%s:%d: %s=\"%s\": expected \"true\" or \"false\"", path, line, attr, value);
    return 0;
}

/* Makes room for one more item: the arrays grow as the file is read, so that a large `need`
 * costs memory only for the items the file really has. */
static int grow(loader *l)
{
    items *out = l->out;
    if (out->count < l->vcap)
        return 0;
    size_t cap = l->vcap ? l->vcap * 2 : 1024;
    if (cap > l->need)
        cap = l->need;
    item_def *v = realloc(out->v, cap * sizeof(*v));
    if (!v)
        return err_set("%s: out of memory for %zu items", l->path, cap);
    out->v = v;
    size_t *off = realloc(l->name_off, cap * sizeof(*off));
    if (!off)
        return err_set("%s: out of memory for %zu items", l->path, cap);
    l->name_off = off;
    l->vcap = cap;
    return 0;
}

/* Reads the attributes of the <item> the reader is on (at `line`) into item number
 * l->out->count, copying its name into the loader's name storage, and counts it. Returns 0, or
 * -1 with err_msg() naming the file and line. */
static int read_item(loader *l, xmlTextReaderPtr r, int line)
{
    items *out = l->out;
    if (grow(l) != 0)
        return -1;
    item_def *it = &out->v[out->count];
    memset(it, 0, sizeof(*it));
    bool have_domain = false, have_name = false, have_generic = false, have_genmsg = false;
    const char *path = l->path;

    for (int ok = xmlTextReaderMoveToFirstAttribute(r); ok == 1;
         ok = xmlTextReaderMoveToNextAttribute(r)) {
        const char *attr = (const char *)xmlTextReaderConstName(r);
        const char *value = (const char *)xmlTextReaderConstValue(r);
        if (!attr || !value)
            continue;
        if (strcmp(attr, "domain") == 0) {
            if (strcmp(value, "MarketPrice") == 0)
                it->domain = ITEMS_DOMAIN_MARKET_PRICE;
            else if (strcmp(value, "MarketByOrder") == 0)
                it->domain = ITEMS_DOMAIN_MARKET_BY_ORDER;
            else
                return err_set("%s:%d: unknown domain \"%s\" (MarketPrice or MarketByOrder)", path,
                               line, value);
            have_domain = true;
        } else if (strcmp(attr, "name") == 0) {
            size_t len = strlen(value);
            if (len == 0)
                return err_set("%s:%d: the item name is empty", path, line);
            if (len > ITEMS_NAME_MAX)
                return err_set("%s:%d: the item name is %zu bytes long (at most %d)", path, line,
                               len, ITEMS_NAME_MAX);
            if (l->used + len + 1 > l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 4096;
                while (cap < l->used + len + 1)
                    cap *= 2;
                char *grown = realloc(l->names, cap);
                if (!grown)
                    return err_set("%s: out of memory for item names", path);
                l->names = grown;
                l->cap = cap;
            }
            memcpy(l->names + l->used, value, len + 1);
            l->name_off[out->count] = l->used;
            l->used += len + 1;
            it->name_len = (uint16_t)len;
            have_name = true;
        } else if (strcmp(attr, "post") == 0) {
            if (parse_bool(path, line, attr, value, &it->post) != 0)
                return -1;
        } else if (strcmp(attr, "generic") == 0 || strcmp(attr, "genMsg") == 0) {
            if (strcmp(attr, "generic") == 0)
                have_generic = true;
            else
                have_genmsg = true;
            if (have_generic && have_genmsg)
                return err_set("%s:%d: both generic and genMsg given (they are the same "
                               "attribute; use one)",
                               path, line);
            if (parse_bool(path, line, attr, value, &it->generic) != 0)
                return -1;
        } else if (strcmp(attr, "snapshot") == 0) {
            if (parse_bool(path, line, attr, value, &it->snapshot) != 0)
                return -1;
        }
        /* Other attributes are ignored, as the ETA tools ignore them. */
    }
    xmlTextReaderMoveToElement(r);

    if (!have_domain || !have_name)
        return err_set("%s:%d: item without %s attribute (domain and name are required)", path,
                       line, !have_domain ? "a domain" : "a name");
    const char *name = l->names + l->name_off[out->count];
    if (it->post && it->snapshot)
        return err_set("%s:%d: item '%s' is set for both post and snapshot", path, line, name);
    if (it->generic && it->snapshot)
        return err_set("%s:%d: item '%s' is set for both generic and snapshot", path, line, name);
    out->post_count += it->post;
    out->generic_count += it->generic;
    out->count++;
    return 0;
}

/* Walks the document until `need` items are read or it ends. Returns 0 or -1 (err_set). */
static int walk(loader *l, xmlTextReaderPtr r, xml_fault *fault)
{
    const char *path = l->path;
    bool root_seen = false;
    bool in_item = false; /* inside an <item> written with an end tag: read to its end */
    int ret = 1;
    while ((l->out->count < l->need || in_item) && (ret = xmlTextReaderRead(r)) == 1) {
        int type = xmlTextReaderNodeType(r);
        if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(r) == 1)
            in_item = false;
        if (type != XML_READER_TYPE_ELEMENT)
            continue;
        const char *name = (const char *)xmlTextReaderConstName(r);
        xmlNodePtr node = xmlTextReaderCurrentNode(r);
        int line = node ? (int)xmlGetLineNo(node) : -1;
        if (line <= 0)
            line = xmlTextReaderGetParserLineNumber(r);
        int depth = xmlTextReaderDepth(r);
        if (depth == 0) {
            if (strcmp(name, "itemList") != 0)
                return err_set("%s:%d: the root element is <%s>; expected <itemList>", path, line,
                               name);
            root_seen = true;
        } else if (depth == 1) {
            if (strcmp(name, "item") != 0)
                return err_set("%s:%d: unknown element <%s> in <itemList>; expected <item>", path,
                               line, name);
            if (read_item(l, r, line) != 0)
                return -1;
            in_item = !xmlTextReaderIsEmptyElement(r);
        } else {
            return err_set("%s:%d: unexpected element <%s> inside <item>", path, line, name);
        }
    }
    if (l->out->count == l->need && !in_item)
        return 0;
    if (ret < 0 || fault->set) {
        if (fault->set)
            return err_set("%s:%d: %s", path, fault->line, fault->text);
        return err_set("%s: not well-formed XML", path);
    }
    if (!root_seen)
        return err_set("%s: no <itemList> element", path);
    if (in_item)
        return err_set("%s: the file ends inside an <item>", path);
    return err_set("%s: %zu item%s found, %zu needed", path, l->out->count,
                   l->out->count == 1 ? "" : "s", l->need);
}

/* libxml2 reports some problems (encoding detection, I/O) through its thread's generic error
 * function, which prints to stderr by default. Those problems also fail the read, and the
 * reader's structured handler gives the message we keep, so the generic one is silenced while
 * a list is read. */
static void quiet(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

typedef struct generic_err {
    xmlGenericErrorFunc fn;
    void *ctx;
} generic_err;

static generic_err silence_libxml(void)
{
    generic_err saved = {xmlGenericError, xmlGenericErrorContext};
    xmlSetGenericErrorFunc(NULL, quiet);
    return saved;
}

static void restore_libxml(generic_err saved)
{
    xmlSetGenericErrorFunc(saved.ctx, saved.fn);
}

/* Reads from a reader made for `name` (NULL when making it failed) into out. */
static int load(items *out, const char *name, size_t need, xmlTextReaderPtr r, xml_fault *fault)
{
    loader l = {.path = name, .out = out, .need = need};
    int rc;
    if (!r) {
        rc = err_set("%s: cannot start the XML reader", name);
    } else {
        xmlTextReaderSetStructuredErrorHandler(r, on_xml_error, fault);
        rc = walk(&l, r, fault);
        xmlFreeTextReader(r);
    }
    if (rc == 0) {
        for (size_t i = 0; i < out->count; i++)
            out->v[i].name = l.names + l.name_off[i];
        out->names = l.names;
    } else {
        free(l.names);
        free(out->v);
        memset(out, 0, sizeof(*out));
    }
    free(l.name_off);
    return rc;
}

int items_load(items *out, const char *path, size_t need)
{
    memset(out, 0, sizeof(*out));
    if (need == 0)
        return err_set("%s: no items asked for", path);

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set_errno(errno, "%s", path);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
        close(fd);
        return err_set("%s: the file is empty", path);
    }
    xmlInitParser();
    generic_err saved = silence_libxml();
    xml_fault fault = {0};
    int rc = load(out, path, need, xmlReaderForFd(fd, path, NULL, XML_PARSE_NONET), &fault);
    restore_libxml(saved);
    close(fd);
    return rc;
}

int items_parse(items *out, const char *name, const char *buf, size_t len, size_t need)
{
    memset(out, 0, sizeof(*out));
    if (need == 0)
        return err_set("%s: no items asked for", name);
    if (len == 0)
        return err_set("%s: the file is empty", name);
    if (len > INT32_MAX)
        return err_set("%s: too large", name);
    xmlInitParser();
    generic_err saved = silence_libxml();
    xml_fault fault = {0};
    int rc = load(out, name, need, xmlReaderForMemory(buf, (int)len, name, NULL, XML_PARSE_NONET),
                  &fault);
    restore_libxml(saved);
    return rc;
}

void items_free(items *l)
{
    free(l->v);
    free(l->names);
    memset(l, 0, sizeof(*l));
}

int items_split(size_t item_count, size_t common, size_t threads, size_t index, items_share *out)
{
    memset(out, 0, sizeof(*out));
    if (threads == 0)
        return err_set("no threads to share the items among");
    if (index >= threads)
        return err_set("thread %zu of %zu does not exist", index + 1, threads);
    size_t per = item_count / threads, extra = item_count % threads;
    if (common > per)
        return err_set("common item count (%zu) is greater than the item count per thread "
                       "(%zu)",
                       common, per);
    /* Threads before this one took (per + 1) or per items each, `common` of them shared. */
    size_t before = index * per + (index < extra ? index : extra);
    out->count = per + (index < extra ? 1 : 0);
    out->common = common;
    out->first = common + before - index * common;
    return 0;
}

size_t items_needed(size_t item_count, size_t common, size_t threads)
{
    return threads ? item_count - common * (threads - 1) : 0;
}

int items_check_common(int item_count, int common, int threads)
{
    if (common > item_count / threads)
        return err_set("Config Error: -commonItemCount %d is greater than the items per "
                       "connection (%d items over %d connections = %d).",
                       common, item_count, threads, item_count / threads);
    return 0;
}

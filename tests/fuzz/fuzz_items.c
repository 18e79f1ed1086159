/* libFuzzer target: the item list reader on arbitrary bytes. It must return 0 or -1 with a
 * message, never crash, leak or read out of bounds. */
#include "err.h"
#include "items.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    items l;
    /* Ask for a few items, so that both "enough" and "too few" paths run. */
    size_t need = size ? 1 + data[0] % 4 : 1;
    if (items_parse(&l, "fuzz.xml", (const char *)data, size, need) == 0) {
        for (size_t i = 0; i < l.count; i++)
            if (l.v[i].name_len == 0 || l.v[i].name[l.v[i].name_len] != '\0')
                __builtin_trap();
        items_free(&l);
    } else if (err_msg()[0] == '\0') {
        __builtin_trap();
    }
    return 0;
}

/* The bounded xz decoder (nsys-jax CSV member, HLO dumps). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *out = NULL;
    size_t n = 0, at = 0;
    if (td_unxz(data, size, size * 2 + 64, 64 << 20, &out, &n, &at) == 0)
        free(out);
    return 0;
}

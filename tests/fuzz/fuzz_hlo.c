/* The HloProto decoder of nsys-jax's after-optimisation dumps (analyse/xla/hlo.c) on the
 * serialized protobuf (the xz layer has its own harness, fuzz_xz): every instruction is
 * looked up by name and computation, and every stack frame rendered. */
#include "fuzz.h"
#include "analyse/xla/xla.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xla_hlo h;
    memset(&h, 0, sizeof h);
    h.want_all = 1;
    xla_hlo_decode_pb(&h, data, size);
    td_buf b = {0};
    for (size_t i = 0; i < h.nin; i++) {
        const xla_hinst *in = &h.in[i];
        if (xla_hlo_find(&h, in->name, in->namel) == NULL)
            abort(); /* every decoded instruction is found by its own name */
        size_t first = 0;
        size_t n = xla_hlo_comp(&h, in->comp, &first);
        if (n == 0 || first + n > h.nin)
            abort(); /* its computation holds at least this instruction */
        b.n = 0;
        xla_hlo_frames(&h, in->frame, &b);
    }
    for (size_t f = 0; f <= h.nfrm + 1; f++) {
        b.n = 0;
        xla_hlo_frames(&h, (int32_t)f, &b);
    }
    td_buf_free(&b);
    xla_hlo_free(&h);
    return 0;
}

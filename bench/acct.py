#!/usr/bin/python3
"""bench/acct.py - what a run of the test suite spent, per program, from BSD process
accounting (Debian package acct), with the page faults `sa` does not show.

    touch /tmp/pacct && accton /tmp/pacct && tests/run.sh; accton off
    bench/acct.py /tmp/pacct [N]           # the N programs with the most CPU (default 25)

The kernel writes one 64-byte `struct acct_v3` per process that ended (linux/acct.h):
times and faults as comp_t (13-bit mantissa, 3-bit base-8 exponent), ticks of 1/100 s.
`tracedoc` is split by build: an ASan process reserves terabytes of address space
(ac_mem, its average virtual size in KiB, over 1 GiB), and by whether it was forked
without exec (AFORK: the document renderers, and LeakSanitizer's tracer at an ASan
process's exit)."""
import collections
import struct
import sys


def comp(v):
    return (v & 0x1FFF) << (3 * (v >> 13))


def main():
    data = open(sys.argv[1], "rb").read()
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    agg = collections.defaultdict(lambda: [0, 0.0, 0.0, 0])
    for off in range(0, len(data) - 63, 64):
        r = data[off:off + 64]
        f = struct.unpack("<BBHIIIIIIfHHHHHHHH", r[:48])
        if f[1] != 3:
            continue
        comm = r[48:64].split(b"\0")[0].decode("latin1")
        if comm == "tracedoc":
            comm += " asan" if comp(f[12]) > (1 << 20) else " release"
            if f[0] & 1:
                comm += " fork"
        a = agg[comm]
        a[0] += 1
        a[1] += comp(f[10]) / 100
        a[2] += comp(f[11]) / 100
        a[3] += comp(f[15])
    tot = [0, 0.0, 0.0, 0]
    for a in agg.values():
        for i in range(4):
            tot[i] += a[i]
    print(f"{'program':24s} {'processes':>9s} {'user s':>8s} {'sys s':>8s} {'minor faults':>12s} {'per process':>11s}")
    for k, a in sorted(agg.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:top]:
        print(f"{k:24s} {a[0]:9d} {a[1]:8.1f} {a[2]:8.1f} {a[3]:12d} {a[3] // max(a[0], 1):11d}")
    print(f"{'all':24s} {tot[0]:9d} {tot[1]:8.1f} {tot[2]:8.1f} {tot[3]:12d}")


if __name__ == "__main__":
    main()

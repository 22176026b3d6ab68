#!/usr/bin/env python3
"""bench/mkxplane.py SAMPLE OUT [--repeat N] [--max-events K] [--host NAME] [--no-metadata]

Writes an XPlane (XSpace protobuf) made from SAMPLE (a *.xplane.pb): every line's events
repeated N times, each copy shifted by the sample's span (and its correlation ids by the
largest one + 1, so that every launch still has its own id), or only the first K events
of each line (a small seed). --host replaces XSpace.hostnames. The output is streamed: a
plane's length is computed first (event by event), then its bytes are written, so memory
stays small whatever N. Standard library only; the wire format is encoded here."""
import argparse, sys

def rv(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1; x |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return x, i

def fields(b):
    i, out = 0, []
    while i < len(b):
        k, j = rv(b, i); f, w = k >> 3, k & 7
        if w == 0: v, e = rv(b, j)
        elif w == 1: e = j + 8; v = b[j:e]
        elif w == 5: e = j + 4; v = b[j:e]
        elif w == 2:
            l, j = rv(b, j); e = j + l; v = b[j:e]
        else: raise SystemExit("wire type %d" % w)
        out.append((f, w, v, b[i:e])); i = e
    return out

def ev(x):
    out = bytearray()
    while True:
        c = x & 0x7f; x >>= 7
        if x: out.append(c | 0x80)
        else: out.append(c); return bytes(out)

def vlen(x):
    n = 1
    while x >= 0x80: x >>= 7; n += 1
    return n

def key(f, w): return ev(f << 3 | w)
def ld(f, body): return key(f, 2) + ev(len(body)) + body

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sample"); ap.add_argument("out")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--max-events", type=int, default=0)
    ap.add_argument("--host")
    ap.add_argument("--no-metadata", action="store_true", help="leave out /host:metadata (HLO protos)")
    a = ap.parse_args()
    top = fields(open(a.sample, "rb").read())
    # span of the sample's device events (ps) and the largest correlation id
    span, maxcorr, planes = 0, 0, []
    for f, w, v, raw in top:
        if f != 1: continue
        pf = fields(v)
        if a.no_metadata and any(x[0] == 2 and x[2] == b"/host:metadata" for x in pf): continue
        corr = set()
        for g, w2, v2, r2 in pf:
            if g == 5:
                e = {x[0]: x[2] for x in fields(v2)}
                sm = {x[0]: x[2] for x in fields(e.get(2, b""))}
                if sm.get(2) == b"correlation_id": corr.add(sm.get(1, e.get(1)))
        lines = []
        for g, w2, v2, r2 in pf:
            if g != 3: continue
            lf = fields(v2)
            head = b"".join(r for h, _, _, r in lf if h != 4)
            evs = []
            lo = hi = None
            for h, _, e, _ in lf:
                if h != 4: continue
                ef = fields(e)
                off = dur = 0; rest = b""; cv = None
                for q, wq, vq, rq in ef:
                    if q == 2: off = vq
                    elif q == 3: dur = vq; rest += rq
                    elif q == 4 and corr:
                        sf = {x[0]: x[2] for x in fields(vq)}
                        if sf.get(1) in corr and (3 in sf or 4 in sf):
                            cv = (sf[1], 3 if 3 in sf else 4, sf.get(3, sf.get(4)))
                            continue
                        rest += rq
                    else: rest += rq
                if cv: maxcorr = max(maxcorr, cv[2])
                evs.append((off, rest, cv))
                if pf and any(x[0] == 2 and x[2].startswith(b"/device:") for x in pf):
                    lo = off if lo is None else min(lo, off)
                    hi = off + dur if hi is None else max(hi, off + dur)
            if lo is not None: span = max(span, hi - lo)
            if a.max_events: evs = evs[:a.max_events]
            lines.append((head, evs))
        other = b"".join(r for g, _, _, r in pf if g != 3)
        planes.append((other, lines))
    step = span + 1000000  # + 1 us between copies
    def event(off, rest, cv, i):
        body = key(2, 0) + ev(off + i * step) + rest
        if cv:
            sb = key(1, 0) + ev(cv[0]) + key(cv[1], 0) + ev(cv[2] + i * (maxcorr + 1))
            body += ld(4, sb)
        return body
    def event_len(off, rest, cv, i):
        n = 1 + vlen(off + i * step) + len(rest)
        if cv:
            sn = 1 + vlen(cv[0]) + 1 + vlen(cv[2] + i * (maxcorr + 1))
            n += 1 + vlen(sn) + sn
        return n
    out = open(a.out, "wb")
    W = out.write
    for other, lines in planes:
        llen = []
        for head, evs in lines:
            n = len(head)
            for i in range(a.repeat):
                for off, rest, cv in evs:
                    m = event_len(off, rest, cv, i); n += 1 + vlen(m) + m
            llen.append(n)
        plen = len(other) + sum(1 + vlen(n) + n for n in llen)
        W(key(1, 2) + ev(plen)); W(other)
        for (head, evs), n in zip(lines, llen):
            W(key(3, 2) + ev(n)); W(head)
            buf = []
            for i in range(a.repeat):
                for off, rest, cv in evs:
                    b = event(off, rest, cv, i); buf.append(key(4, 2) + ev(len(b)) + b)
                    if len(buf) >= 4096: W(b"".join(buf)); buf = []
            W(b"".join(buf))
    for f, w, v, raw in top:
        if f == 4 and a.host: continue
        if f != 1: W(raw)
    if a.host: W(ld(4, a.host.encode()))
    out.close()

main()

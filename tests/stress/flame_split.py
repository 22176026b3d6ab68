#!/usr/bin/env python3
"""tests/stress/flame_split.py TRACEDOC ROUNDS [SEED] - random folded files (generated
here: CRLF and tab separators, empty lines, decimal, difffolded, negative and overflowing
counts, bad lines, lines of up to 3 KB, with or without a final newline), each drawn by
`tracedoc flame` twice: read in chunks on two threads (TD_SPLIT_MIN=1, TD_SPLIT_CHUNK of
1 to 4096 bytes by the seed, src/read/folded.c) and read in order through a pipe. Exit status, messages and SVG must be the same bytes (the file's
name aside). Prints the first difference and keeps its input; exit 1 then."""
import os
import random
import re
import subprocess
import sys
import tempfile


# the kinds of line, each with its share (the rest: a plain "STACK COUNT")
KINDS = [
    (0.02, lambda r, st: ""),
    (0.02, lambda r, st: f"{st} {r.randint(1, 9)}\r"),
    (0.01, lambda r, st: f"{st}\t{r.randint(1, 99)}"),
    (0.01, lambda r, st: f"{st} {r.randint(1, 9)}.{r.randint(0, 999)}"),
    (0.01, lambda r, st: f"{st} {r.randint(0, 9)} {r.randint(0, 9)}"),
    (0.005, lambda r, st: f"{st} -{r.randint(1, 9)}"),
    (0.003, lambda r, st: f"{st} x1"),
    (0.002, lambda r, st: f"{st} 9223372036854775{r.randint(100, 999)}"),
    (0.005, lambda r, st: "x" * r.randint(1, 3000) + ";" + st + " 5"),
]


def line(r, st):
    k = r.random()
    for share, make in KINDS:
        if k < share:
            return make(r, st)
        k -= share
    return f"{st} {r.randint(0, 1000)}"


def gen(r):
    frames = [f"f{i}" for i in range(r.randint(1, 30))]
    lines = [line(r, ";".join(r.choice(frames) for _ in range(r.randint(1, 12))))
             for _ in range(r.randint(1, 400))]
    text = "\n".join(lines)
    return text + "\n" if r.random() < 0.7 else text


def main():
    td, rounds = sys.argv[1], int(sys.argv[2])
    seed0 = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    work = tempfile.mkdtemp()
    path, svg = os.path.join(work, "in.folded"), os.path.join(work, "out.svg")

    def neutral(b):
        return re.sub(rb"/dev/fd/\d+", b"IN", b.replace(path.encode(), b"IN"))

    for seed in range(seed0, seed0 + rounds):
        with open(path, "w") as f:
            f.write(gen(random.Random(seed)))
        got = []
        for split in (True, False):
            env = dict(os.environ)
            if split:
                env["TD_SPLIT_MIN"] = "1"
                env["TD_SPLIT_CHUNK"] = str(random.Random(seed).choice([1, 7, 64, 700, 4096]))
                cmd = [td, "flame", "--minwidth", "0", "-o", svg, path]
            else:
                env.pop("TD_SPLIT_MIN", None)
                cmd = ["bash", "-c", 'exec "$0" flame --minwidth 0 -o "$1" <(cat "$2")',
                       td, svg, path]
            q = subprocess.run(cmd, env=env, capture_output=True)
            drawn = b""
            if os.path.exists(svg):
                with open(svg, "rb") as f:
                    drawn = f.read()
                os.remove(svg)
            got.append((q.returncode, neutral(q.stderr), neutral(drawn)))
        if got[0] != got[1]:
            what = ", ".join(w for w, i in (("exit status", 0), ("messages", 1), ("SVG", 2))
                             if got[0][i] != got[1][i])
            print(f"seed {seed}: not the same ({what}); read in halves: exit {got[0][0]} "
                  f"{got[0][1][:300]!r}; in order: exit {got[1][0]} {got[1][1][:300]!r}; "
                  f"input kept in {path}")
            return 1
    print(f"flame on two threads: {rounds} random folded files, each drawn as read in order")
    os.remove(path)
    os.rmdir(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())

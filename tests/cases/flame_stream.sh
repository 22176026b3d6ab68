# tracedoc flame on a folded file larger than its read window (4 MiB: mapped a window
# at a time), stacks repeated in random order (summed per stack, flushed to the tree at
# the end, looked up in batches), one line longer than a window, a last line without a
# newline, and a decimal count arriving late (the stacks before it rescaled). Expected
# values: every frame's total computed independently in Python from the lines
# (sum of the counts of the stacks through that path), against the SVG's frames.
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
$PY - <<'PYEOF'
import random
rng = random.Random(7)
stacks = [";".join(f"f{d}_{rng.randrange(4)}" for d in range(rng.randint(2, 9)))
          for _ in range(300)]
stacks = sorted(set(stacks))
lines = []
for i in range(180000):
    lines.append(f"{rng.choice(stacks)} {rng.randint(1, 999)}")
# longer than a window: a count with 5 MiB of leading zeros
lines.insert(90000, "main;wide " + "0" * (5 << 20) + "90000000")
with open("big.folded", "w") as f:
    f.write("\n".join(lines))                             # no final newline
with open("late.folded", "w") as f:                       # a decimal count at the end
    f.write("\n".join(lines[:50000]) + "\nmain;x 30000000.5\n")
PYEOF
"$TD" flame big.folded -o big.svg || die "flame big.folded"
"$TD" flame late.folded -o late.svg || die "flame late.folded"
$PY - <<'PYEOF' || die "frames differ from the lines' sums"
import re, collections
def expected(path, unit):
    tot = collections.Counter()
    for l in open(path).read().split("\n"):
        if not l:
            continue
        st, v = l.rsplit(" ", 1)
        v = round(float(v) * unit)
        fr = st.split(";")
        for d in range(1, len(fr) + 1):
            tot[";".join(fr[:d])] += v
    # one frame per path: its name and value (names repeat under other parents)
    return sorted((p.rsplit(";", 1)[-1], v) for p, v in tot.items())
def drawn(svg):
    s = open(svg).read()
    got = [(m.group(2), int(m.group(1))) for m in
           re.finditer(r'<g data-v="(\d+)"><title>(.*?)\n', s, re.S)]
    return sorted(x for x in got if x[0] != "all")
for name, unit in (("big", 1), ("late", 1000)):
    e, g = expected(name + ".folded", unit), drawn(name + ".svg")
    assert e == g, (name, len(e), len(g), [(x[0][:40], x[1]) for x in e if x not in g][:3],
                    [(x[0][:40], x[1]) for x in g if x not in e][:3])
PYEOF
exit 0

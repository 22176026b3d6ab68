# Mann-Whitney U, the Student t test and E-divisive change points against scipy
# (scipy.stats.mannwhitneyu, scipy.stats.ttest_ind) and an E-divisive written here in
# Python from the published description (energy statistic alpha = 1, Student t test of
# each candidate inside its segment, weak change points re-tested).
. "$ROOT/tests/lib.sh"
$PY -c 'import scipy.stats' 2>/dev/null || { echo "python3-scipy missing"; exit 77; }
BIN="$(dirname "$TD")/tests/test_stats"
[ -x "$BIN" ] || die "no $BIN"
$PY -W ignore - "$WORK/ref.txt" <<'PY' || die "reference generation"
import sys, random
from scipy.stats import mannwhitneyu, ttest_ind, t as tdist
def pooled_p(X, Y):
    # scipy's ttest_ind gives NaN with a one-point side ((n-1) * var is 0 there, which
    # the pooled formula allows): the statistic by hand, the distribution from scipy
    if len(X) > 1 and len(Y) > 1: return ttest_ind(X, Y).pvalue
    m1, m2 = sum(X) / len(X), sum(Y) / len(Y)
    ss = sum((v - m1) ** 2 for v in X) + sum((v - m2) ** 2 for v in Y)
    df = len(X) + len(Y) - 2
    se = (ss / df * (1 / len(X) + 1 / len(Y))) ** 0.5
    if se == 0: return 0.0 if m1 != m2 else 1.0
    return 2 * tdist.sf(abs(m2 - m1) / se, df)
rnd = random.Random(12)
out = open(sys.argv[1], "w")
def fmt(v): return " ".join(repr(float(a)) for a in v)
for case in range(60):
    nx, ny = rnd.randint(2, 14), rnd.randint(2, 14)
    if case % 3 == 0:   # ties: integer values
        x = [rnd.randint(0, 6) for _ in range(nx)]; y = [rnd.randint(1, 7) for _ in range(ny)]
    else:
        x = [rnd.gauss(100, 10) for _ in range(nx)]; y = [rnd.gauss(100 + rnd.choice([0, 8, 20]), 10) for _ in range(ny)]
    r = mannwhitneyu(x, y, alternative="two-sided")
    out.write("mw %d %d %s %s %r %r\n" % (nx, ny, fmt(x), fmt(y), float(r.statistic), float(r.pvalue)))
    if len(set(x + y)) > 1:
        out.write("tt %d %d %s %s %r\n" % (nx, ny, fmt(x), fmt(y), float(ttest_ind(x, y).pvalue)))

def q(x, a, t, b):
    X, Y = x[a:t], x[t:b]; m, k = len(X), len(Y)
    e = 2 * sum(abs(u - v) for u in X for v in Y) / (m * k)
    if m > 1: e -= sum(abs(X[i] - X[j]) for i in range(m) for j in range(i + 1, m)) / (m * (m - 1) / 2)
    if k > 1: e -= sum(abs(Y[i] - Y[j]) for i in range(k) for j in range(i + 1, k)) / (k * (k - 1) / 2)
    return m * k / (m + k) * e
def ok(x, a, t, b, maxp, mineff):
    X, Y = x[a:t], x[t:b]
    if len(set(X + Y)) == 1: return False
    if (max(X) == min(X)) and (max(Y) == min(Y)): p = 0.0 if X[0] != Y[0] else 1.0
    else: p = pooled_p(X, Y)
    if not p < maxp: return False
    m1, m2 = sum(X) / len(X), sum(Y) / len(Y)
    return abs(m2 - m1) / abs(m1) >= mineff
def edivisive(x, maxp, mineff):
    b = [0, len(x)]; done = set()
    changed = True
    while changed:
        changed = False
        k = 0
        while k + 1 < len(b):
            lo, hi = b[k], b[k + 1]
            if lo in done or hi - lo < 3: k += 1; continue
            best = max(range(lo + 1, hi), key=lambda t: (q(x, lo, t, hi), -t))
            if ok(x, lo, best, hi, maxp, mineff):
                b.insert(k + 1, best); changed = True; k += 2
            else:
                done.add(lo); k += 1
    while True:
        bad = [(pooled_p(x[b[k-1]:b[k]], x[b[k]:b[k+1]]), k) for k in range(1, len(b) - 1)
               if not ok(x, b[k-1], b[k], b[k+1], maxp, mineff)]
        if not bad: break
        del b[max(bad)[1]]
    return b[1:-1]
for case in range(40):
    n = rnd.randint(8, 40)
    level, x = 100.0, []
    for i in range(n):
        if rnd.random() < 0.08: level *= rnd.choice([0.7, 1.3, 1.6])
        x.append(round(rnd.gauss(level, level * 0.03), 3))
    cps = edivisive(x, 0.001, 0.05)
    out.write("ed %d 0.001 0.05 %s %d %s\n" % (n, fmt(x), len(cps), " ".join(map(str, cps))))
PY
"$BIN" "$WORK/ref.txt" 2>"$WORK/err" || { cat "$WORK/err"; die "differs from scipy / the Python E-divisive"; }
grep -q '^[0-9]* reference cases' "$WORK/err" || die "no reference cases read"
exit 0

# fold: default stacks, fallback when an input has no CPU stacks, explicit kinds.
. "$ROOT/tests/lib.sh"
need_traces
J="$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip"
"$TD" fold "$J" >"$WORK/d.folded" 2>"$WORK/err" || die "fold failed"
grep -q 'using the device stacks' "$WORK/err" || die "no note about the fallback"
"$TD" fold --stacks device "$J" >"$WORK/d2.folded" 2>/dev/null || die "fold --stacks device"
cmp -s "$WORK/d.folded" "$WORK/d2.folded" || die "fallback differs from --stacks device"
# every line is 'frames VALUE' with module;thunk frames and a positive value, sorted
$PY - "$WORK/d.folded" <<'PY' || exit 1
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no stacks"
keys = []
for l in lines:
    st, v = l.rsplit(" ", 1)
    assert int(v) > 0 and st.count(";") == 1, l
    keys.append(st)
assert keys == sorted(keys, key=lambda s: s.encode()), "not sorted"
assert len(set(keys)) == len(keys), "duplicate stacks"
PY
# an explicit kind the input lacks: empty output and a warning naming what it has
"$TD" fold --stacks cpu "$J" >"$WORK/c.folded" 2>"$WORK/err2" || die "fold --stacks cpu"
[ ! -s "$WORK/c.folded" ] || die "cpu stacks from an archive without them"
grep -q 'it has: .*device' "$WORK/err2" || die "warning lacks the available kinds"
# a Kineto trace folds CPU stacks by default, to a file with -o
"$TD" fold "$ROOT/examples/hta_nccl_data.json.gz" -o "$WORK/k.folded" 2>/dev/null || die "fold -o"
head -1 "$WORK/k.folded" | grep -Eq '^[^ ].* [0-9]+$' || die "folded format"
exit 0

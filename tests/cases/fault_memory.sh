# Under a memory limit the PDF/SVG renderers (pango, fontconfig) abort or crash; they run
# in a child process (cli/docproc.c), so tracedoc ends with the documented exit 5 and a
# message, every line prefixed, and the output directory keeps the earlier run. Exit 0
# (enough memory on this machine) is fine; 133/139 (death by signal) never is.
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
[ -n "${TD_SAN:-}" ] && { echo "sanitizer build: ulimit -v does not apply"; exit 77; }
case "$TD" in *asan*) echo "sanitizer build: ulimit -v does not apply"; exit 77 ;; esac
"$TD" report "$EX" --format json -o "$WORK/r" || die "first report"
cp "$WORK/r/summary.json" "$WORK/old.json"
saw5=0
# 60-70 MB: too little to map the graphics libraries, which are loaded (dlopen) only for
# the PDF (src/render/pdf/gfx.c): out of memory too (exit 5), not "cannot write" (4)
for kb in 60000 70000 90000 100000 110000 125000; do
    (ulimit -v $kb; exec "$TD" report "$EX" --format pdf,svg,json -o "$WORK/r") >/dev/null 2>"$WORK/err"
    rc=$?
    case $rc in
    0) ;;
    5)
        saw5=1
        grep -q "^tracedoc: the renderer of the PDF and SVG documents died (signal [0-9]*, .*): out of memory?" "$WORK/err" ||
            grep -q "^tracedoc: .*\(memory\|cannot allocate\)" "$WORK/err" || die "limit ${kb}K: exit 5 without a message: $(cat "$WORK/err")"
        cmp -s "$WORK/r/summary.json" "$WORK/old.json" || die "limit ${kb}K: the failed run changed the directory"
        ;;
    127) echo "limit ${kb}K: cannot even load the libraries"; continue ;;
    *) die "limit ${kb}K: exit $rc: $(cat "$WORK/err")" ;;
    esac
    grep -v '^tracedoc: ' "$WORK/err" && die "limit ${kb}K: unprefixed output"
done
echo "exit 5 seen: $saw5"
exit 0

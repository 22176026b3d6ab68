# The libraries tracedoc uses for one kind of input or output only are loaded when first
# used (src/base/dynlib.h), not linked: the graphics libraries of the PDF (cairo, pango,
# fontconfig, glib), xlsxwriter, SQLite, libarchive, snappy and libcrypto.
# 1. none of them is among the shared objects the binary needs (readelf -d);
# 2. a run maps only those its inputs and outputs need (the dynamic linker's own trace of
#    the files it opens, LD_DEBUG=files): a Kineto trace to JSON/CSV/SVG maps none
#    (libcrypto only where the CPU lacks the SHA extensions, or with TD_SHA256=libcrypto,
#    which gives the same digests); an XLSX maps xlsxwriter, a PDF the graphics, an nsys
#    export SQLite, an archive libarchive, a snappy Parquet page snappy;
# 3. a library that cannot be loaded (an empty file bound over it in a mount namespace)
#    fails the run that needs it with the documented exit status and a message naming the
#    file, the library and its Debian package, writes nothing, and leaves the other runs
#    working.
. "$ROOT/tests/lib.sh"
EX=$ROOT/examples/hta_nccl_data.json.gz
export TRACEDOC_DATA="$ROOT"

# 1.
need=$(readelf -d "$TD" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
[ -n "$need" ] || die "readelf -d lists no shared library"
bad=$(echo "$need" | grep -E 'cairo|pango|fontconfig|glib|gobject|freetype|harfbuzz|xlsxwriter|sqlite|archive|snappy|stdc\+\+|crypto|xml2|icu') &&
    die "linked against a library loaded when first used: $bad"

# 2. maps NAME SO...: the run traced as NAME opened each SO; maps_not NAME SO...: none
maps() {
    local log=$WORK/$1.log so; shift
    for so in "$@"; do
        grep -q "file=$so " "$log" || die "$so not loaded by the run of $log"
    done
}
maps_not() {
    local log=$WORK/$1.log so; shift
    for so in "$@"; do
        grep -q "file=$so " "$log" && die "$so loaded by a run that does not need it ($log)"
    done
    return 0
}
run_traced() { # NAME CMD...: runs CMD with the loader's trace in $WORK/NAME.log
    local n=$1; shift
    LD_DEBUG=files "$@" >/dev/null 2>"$WORK/$n.log" || { grep -v '^ *[0-9]*:' "$WORK/$n.log" | tail -5; die "$n failed"; }
}
LAZY="libcairo.so.2 libxlsxwriter.so.4 libsqlite3.so.0 libarchive.so.13 libsnappy.so.1"
run_traced plain "$TD" report "$EX" --format json,csv,svg -o "$WORK/plain"
maps_not plain $LAZY
# the inputs' SHA-256: on the CPU's SHA extensions where it has them (base/sha256_ni.c),
# else libcrypto's; TD_SHA256=libcrypto takes libcrypto anyway
if grep -qw sha_ni /proc/cpuinfo 2>/dev/null && [ "${BUILD_KIND:-build}" != build-portable ]; then
    maps_not plain libcrypto.so.3
else
    maps plain libcrypto.so.3
fi
TD_SHA256=libcrypto run_traced crypto "$TD" report "$EX" --format json -o "$WORK/crypto"
maps crypto libcrypto.so.3
cmp "$WORK/plain/summary.json" "$WORK/crypto/summary.json" || die "the digests of libcrypto differ from the SHA extensions'"
run_traced version "$TD" --version
maps_not version $LAZY libcrypto.so.3
run_traced xlsx "$TD" report "$EX" --format xlsx -o "$WORK/x"
maps xlsx libxlsxwriter.so.4
maps_not xlsx libcairo.so.2 libsqlite3.so.0 libarchive.so.13 libsnappy.so.1
run_traced pdf "$TD" report "$EX" --format pdf -o "$WORK/pdf"
maps pdf libcairo.so.2
maps_not pdf libxlsxwriter.so.4 libsqlite3.so.0 libarchive.so.13
[ -s "$WORK/pdf/report.pdf" ] || die "no report.pdf"
run_traced hist "$TD" report "$EX" --format json --history "$WORK/h.db" -o "$WORK/h"
maps hist libsqlite3.so.0
maps_not hist libarchive.so.13 libxlsxwriter.so.4
if [ -n "${TRACES:-}" ] && [ -d "$TRACES" ]; then
    NSYS=$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite
    JAX=$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip
    TAR=$TRACES/kineto/param_dlrm_8ranks.tar.gz
    run_traced nsys "$TD" report "$NSYS" --format json -o "$WORK/n"
    maps nsys libsqlite3.so.0
    maps_not nsys libarchive.so.13 libxlsxwriter.so.4 libcairo.so.2
    run_traced jax "$TD" report "$JAX" --format json -o "$WORK/j"
    maps jax libarchive.so.13 libsnappy.so.1
    maps_not jax libsqlite3.so.0 libxlsxwriter.so.4
    run_traced tar "$TD" report "$TAR" --format json -o "$WORK/t"
    maps tar libarchive.so.13
    maps_not tar libsqlite3.so.0 libsnappy.so.1
fi

# 3.
if ! unshare -m true 2>/dev/null; then
    echo "unshare -m not permitted here (not root?): the missing-library part is not run"
    exit 0
fi
# without SO (bound over by /dev/null): CMD... exits WANT and says MSG (a grep pattern)
without() {
    local so=$1 want=$2 msg=$3 lib rc; shift 3
    lib=$(ldconfig -p | awk -v s="$so" '$1 == s { print $NF; exit }')
    [ -n "$lib" ] || die "ldconfig does not know $so"
    unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" "$@" \
        >/dev/null 2>"$WORK/err"
    rc=$?
    [ "$rc" = "$want" ] || { cat "$WORK/err"; die "without $so: exit $rc, expected $want: $*"; }
    [ "$want" = 0 ] && return 0
    grep -q "$msg" "$WORK/err" || { cat "$WORK/err"; die "without $so: the message is not /$msg/"; }
}
# the PDF: exit 4, the earlier run's directory untouched, nothing written
before=$(cd "$WORK/pdf" && ls -l --time-style=+%s.%N && md5sum ./*)
without libpangoft2-1.0.so.0 4 "^tracedoc: $WORK/pdf/report.pdf: cannot write a PDF: the library libpango[a-z0-9.-]* (Debian package libpango[a-z0-9.-]*) cannot be loaded" \
    "$TD" report "$EX" --format pdf,json -o "$WORK/pdf"
[ "$(cd "$WORK/pdf" && ls -l --time-style=+%s.%N && md5sum ./*)" = "$before" ] ||
    die "missing library: the output directory of the earlier run changed"
[ ! -e "$WORK/pdf/summary.json" ] || die "missing library: summary.json written"
without libpangoft2-1.0.so.0 0 "" "$TD" report "$EX" --format json,svg,xlsx -o "$WORK/j1"
[ -s "$WORK/j1/summary.json" ] && [ -s "$WORK/j1/report.xlsx" ] || die "outputs without a PDF missing"
# the workbook: exit 4; the other outputs still written by a run without it
without libxlsxwriter.so.4 4 "^tracedoc: $WORK/x2/report.xlsx: cannot write a workbook: the library libxlsxwriter.so.4 (Debian package libxlsxwriter4) cannot be loaded" \
    "$TD" report "$EX" --format xlsx,json -o "$WORK/x2"
[ ! -e "$WORK/x2/summary.json" ] || die "missing xlsxwriter: summary.json written"
without libxlsxwriter.so.4 0 "" "$TD" report "$EX" --format json,pdf -o "$WORK/x3"
# the history database: exit 3, naming the database
without libsqlite3.so.0 3 "^tracedoc: $WORK/h2.db: cannot open SQLite databases: the library libsqlite3.so.0 (Debian package libsqlite3-0) cannot be loaded" \
    "$TD" report "$EX" --format json --history "$WORK/h2.db" -o "$WORK/h2"
[ ! -e "$WORK/h2.db" ] || die "missing SQLite: the history database was created"
# the digest of every input through libcrypto: exit 5
TD_SHA256=libcrypto without libcrypto.so.3 5 "^tracedoc: $EX: SHA-256 is not available: the library libcrypto.so.3 (Debian package libssl3) cannot be loaded" "$TD" report "$EX" --format json -o "$WORK/c"
if [ -n "${TRACES:-}" ] && [ -d "$TRACES" ]; then
    without libsqlite3.so.0 3 "^tracedoc: $NSYS: cannot open SQLite databases: the library libsqlite3.so.0 (Debian package libsqlite3-0) cannot be loaded" \
        "$TD" report "$NSYS" --format json -o "$WORK/n2"
    without libsqlite3.so.0 0 "" "$TD" report "$JAX" --format json -o "$WORK/j2"
    without libarchive.so.13 3 "^tracedoc: $JAX: cannot read archives: the library libarchive.so.13 (Debian package libarchive13) cannot be loaded" \
        "$TD" report "$JAX" --format json -o "$WORK/j3"
    without libarchive.so.13 3 "^tracedoc: $TAR: cannot read archives: the library libarchive.so.13 (Debian package libarchive13) cannot be loaded" \
        "$TD" report "$TAR" --format json -o "$WORK/t2"
    without libarchive.so.13 0 "" "$TD" report "$NSYS" --format json -o "$WORK/n3"
    without libsnappy.so.1 3 "cannot read snappy-compressed pages: the library libsnappy.so.1 (Debian package libsnappy1v5) cannot be loaded" \
        "$TD" report "$JAX" --format json -o "$WORK/j4"
fi
exit 0

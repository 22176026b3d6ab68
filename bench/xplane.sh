#!/usr/bin/env bash
# bench/xplane.sh [REPEAT]: an XPlane of REPEAT copies (default 2000: 103 MB, 3.98 M events)
# of the shared sample's events (bench/mkxplane.py), read only (bench/xplane_read.c: CPU
# and peak RSS of reading: plain, gzip, stdin) and through `report --timings`.
set -eu
cd "$(dirname "$0")/.."
R=${1:-2000}
D=${TMPDIR:-/tmp}/td-xplane-bench
mkdir -p "$D"
X=../shared/traces/xplane/934987a2fc2f.xplane.pb
[ -f "$D/x$R.xplane.pb" ] || python3 bench/mkxplane.py "$X" "$D/x$R.xplane.pb" --repeat "$R"
[ -f "$D/x$R.xplane.pb.gz" ] || gzip -1 -c "$D/x$R.xplane.pb" >"$D/x$R.xplane.pb.gz"
[ -x build/tracedoc ] || make -s BUILD=build -j2
cc -O2 -Isrc -o "$D/xplane_read" bench/xplane_read.c build/libtracedoc.a -llzma -lzstd -lz \
    -lisal -ljansson -lcsv -lm -lpthread -ldl -lsqlite3 -larchive -lcrypto
ls -l "$D/x$R.xplane.pb" "$D/x$R.xplane.pb.gz"
echo "plain: $("$D/xplane_read" "$D/x$R.xplane.pb")"
echo "gzip:  $("$D/xplane_read" "$D/x$R.xplane.pb.gz")"
echo "stdin: $("$D/xplane_read" - <"$D/x$R.xplane.pb")"
/usr/bin/time -f "report: wall %e user %U sys %S rss_kb %M" build/tracedoc report --timings \
    --format json -o "$D/out" "$D/x$R.xplane.pb" 2>&1 | grep -E "timings: (read|analyse)|report:"

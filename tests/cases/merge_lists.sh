# merge of many parts (issue 22): a directory of parts, --files-from FILE|- (one path a
# line), -o creating its parent directories (merge, report, summarize), --progress, and
# 60,000 parts through --files-from (more than a command line holds).
# Expected values: the flat merge of the 8 DLRM ranks given on the command line (the
# same bytes whatever way the list arrives), and the counts by construction (60,000
# ranks in, 60,000 inputs and ranks out).
. "$ROOT/tests/lib.sh"
need_traces
mkdir -p "$WORK/r" && tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -C "$WORK/r" || die "tar"
D="$WORK/r/dlrm_kineto"
# -o's parents made by summarize (a Slurm array's first task finds no parts/)
for f in "$D"/*.json; do
    "$TD" summarize "$f" -o "$WORK/new/parts/$(basename "$f" .json).tds" 2>"$WORK/s.err" ||
        die "summarize $f: $(cat "$WORK/s.err")"
done
P="$WORK/new/parts"
[ "$(ls "$P"/*.tds | wc -l)" = 8 ] || die "expected 8 parts"
"$TD" merge "$P"/*.tds -o "$WORK/flat.tds" || die "merge of the arguments"
# a directory: its .tds files, sorted (a stray file of another kind is not a part)
echo hello >"$P/notes.txt"
"$TD" merge "$P" -o "$WORK/dir.tds" || die "merge DIR"
cmp "$WORK/flat.tds" "$WORK/dir.tds" || die "merge DIR differs from merge of the files"
# --files-from FILE (CRLF line ends and a blank line are not part of a path) and stdin
ls "$P"/*.tds | sed 's/$/\r/' >"$WORK/list.txt" && echo >>"$WORK/list.txt"
"$TD" merge --files-from "$WORK/list.txt" -o "$WORK/ff.tds" || die "merge --files-from FILE"
cmp "$WORK/flat.tds" "$WORK/ff.tds" || die "--files-from FILE differs"
ls "$P"/*.tds | "$TD" merge --files-from - -o "$WORK/stdin.tds" || die "merge --files-from -"
cmp "$WORK/flat.tds" "$WORK/stdin.tds" || die "--files-from - differs"
# the documents too: merge --files-from - -o DIR (in a directory that does not exist yet)
ls "$P"/*.tds | "$TD" merge --files-from - -o "$WORK/a/b/report" --format json ||
    die "merge --files-from - -o a/b/report"
"$TD" merge "$P"/*.tds -o "$WORK/args" --format json || die "merge -o args"
cmp "$WORK/a/b/report/summary.json" "$WORK/args/summary.json" || die "summary.json differs"
# the checks can fail: one part fewer is another merge
ls "$P"/*.tds | tail -n +2 | "$TD" merge --files-from - -o "$WORK/seven.tds" || die "merge 7"
cmp -s "$WORK/flat.tds" "$WORK/seven.tds" && die "7 parts gave the bytes of 8"
# mistakes: '-' as a part, an empty list, a directory without parts, a missing list
expect_exit 2 "$TD" merge - -o "$WORK/x.tds" 2>"$WORK/e" || exit 1
grep -q -- "--files-from -" "$WORK/e" || die "merge -: no hint: $(cat "$WORK/e")"
expect_exit 2 "$TD" merge -o "$WORK/x.tds" 2>/dev/null </dev/null || exit 1
: | expect_exit 3 "$TD" merge --files-from - -o "$WORK/x.tds" 2>/dev/null || exit 1
mkdir -p "$WORK/empty"
expect_exit 3 "$TD" merge "$WORK/empty" -o "$WORK/x.tds" 2>"$WORK/e" || exit 1
grep -q "no partial summaries" "$WORK/e" || die "empty dir: $(cat "$WORK/e")"
expect_exit 3 "$TD" merge --files-from "$WORK/nolist" -o "$WORK/x.tds" 2>/dev/null || exit 1
# -o: merged partial and report into new directories; a file in the way fails at once
"$TD" merge "$P" -o "$WORK/t1/t2/m.tds" || die "merge -o new/dir/m.tds"
cmp "$WORK/flat.tds" "$WORK/t1/t2/m.tds" || die "merge into a new directory differs"
"$TD" report "$D/$(ls "$D" | head -1)" -o "$WORK/rep/x/y" --format json || die "report -o a/b/c"
[ -s "$WORK/rep/x/y/summary.json" ] || die "report: no summary.json"
: >"$WORK/file"
expect_exit 4 "$TD" merge "$P" -o "$WORK/file/sub/m.tds" 2>"$WORK/e" || exit 1
grep -q "file/sub: cannot create directory\|file: cannot create directory" "$WORK/e" ||
    die "blocked -o: $(cat "$WORK/e")"
expect_exit 4 "$TD" report "$D/$(ls "$D" | head -1)" -o "$WORK/file/r" 2>"$WORK/e" || exit 1
grep -q "progress\|reading" "$WORK/e" && die "report read before failing on -o"
# --progress: stderr is a file here, so progress only with the option
"$TD" merge "$P" -o "$WORK/p.tds" 2>"$WORK/e" || die "merge quiet"
[ ! -s "$WORK/e" ] || die "progress without --progress: $(cat "$WORK/e")"
"$TD" merge --progress "$P" -o "$WORK/p.tds" 2>"$WORK/e" || die "merge --progress"
grep -q "^tracedoc: merge: 1/8 parts" "$WORK/e" && grep -q "^tracedoc: merge: 8/8 parts" "$WORK/e" ||
    die "merge --progress: $(cat "$WORK/e")"
"$TD" summarize --progress "$D/$(ls "$D" | head -1)" -o "$WORK/q.tds" 2>"$WORK/e" || die "summarize --progress"
grep -q "^tracedoc: reading .* (1 of 1)" "$WORK/e" || die "summarize --progress: $(cat "$WORK/e")"
"$TD" report --progress "$P" -o "$WORK/pr" --format json 2>"$WORK/e" </dev/null && die "report takes a directory of traces, not parts"
"$TD" merge --progress "$P" -o "$WORK/pr" --format json 2>"$WORK/e" || die "merge -o DIR --progress"
grep -q "^tracedoc: writing the documents to" "$WORK/e" || die "merge -o DIR --progress: $(cat "$WORK/e")"
"$TD" report --progress "$D/$(ls "$D" | head -1)" -o "$WORK/pr2" --format json 2>"$WORK/e" || die "report --progress"
grep -q "^tracedoc: reading" "$WORK/e" && grep -q "^tracedoc: writing the documents" "$WORK/e" ||
    die "report --progress: $(cat "$WORK/e")"
# 60,000 parts through --files-from: a tiny one-rank trace summarized once, copied with the
# rank (and the name) of each of the 60,000 ranks (fewer in the sanitizer build)
N=60000
[ "${BUILD_KIND:-build}" = build ] || N=3000
cat >"$WORK/tiny.json" <<JSON
{"distributedInfo": {"backend": "nccl", "rank": 7, "world_size": $N},
 "deviceProperties": [{"id": 0, "name": "GPU"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020, "dur": 20, "args": {"correlation": 1, "device": 0, "stream": 7}}
 ]}
JSON
"$TD" summarize "$WORK/tiny.json" -o "$WORK/tiny.tds" || die "summarize tiny"
$PY - "$WORK/tiny.tds" "$WORK/many" $N <<'PYEOF' || exit 1
import hashlib, os, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out)
tpl = []
for l in open(src).read().split("\n"):
    l = l.replace("{", "{{").replace("}", "}}")
    f = l.split("\t")
    if f[:2] == ["row", "inputs"]:    # path, sha256, rank
        f[2], f[5], f[7] = "{name}", "{sha}", "{rank}"
    elif f[:2] == ["row", "gpu_timeline"]:
        f[2] = "{rank}"
    elif f[:2] == ["rec", "input"]:
        f[2], f[3] = "{name}\\u{name}", "{rank}"
    elif f[:2] == ["rec", "flame"]:
        f[2] = f[2].replace("rank 7 ", "rank {rank} ")
    elif f[:2] == ["kv", "inputs_label"]:
        f[4] = "{name}"
    tpl.append("\t".join(f))
# the sum line: the SHA-256 of the lines before it, per copy
at = [i for i, l in enumerate(tpl) if l.startswith("sum\tsha256\t")]
assert len(at) == 1, "no sum line"
body, tail = "\n".join(tpl[:at[0]]) + "\n", "\n".join(tpl[at[0] + 1:])
assert body.count("{rank}") == 6, body
for k in range(n):
    name = f"worker{k}_step_12.1694128201545.pt.trace.json"
    text = body.format(name=name, rank=k, sha="%064x" % k)
    with open(f"{out}/worker{k}_step_12.tds", "w") as fh:
        fh.write(text + "sum\tsha256\t" + hashlib.sha256(text.encode()).hexdigest() + "\n" +
                 tail)
PYEOF
find "$WORK/many" -name '*.tds' >"$WORK/many.txt"
[ "$(wc -l <"$WORK/many.txt")" = $N ] || die "expected $N parts"
"$TD" merge --progress --files-from "$WORK/many.txt" -o "$WORK/many.tds" 2>"$WORK/e" ||
    die "merge of $N parts: $(tail -3 "$WORK/e")"
grep -q "^tracedoc: merge: $N/$N parts" "$WORK/e" || die "no last progress line: $(tail -2 "$WORK/e")"
# rate-limited: far fewer lines than parts
[ "$(wc -l <"$WORK/e")" -lt 1000 ] || die "a progress line per part"
[ "$(grep -c "^rec	input	" "$WORK/many.tds")" = $N ] || die "merged inputs != $N"
grep -q "^kv	trace.ranks	int	Ranks	$N\$" "$WORK/many.tds" || die "trace.ranks != $N"
grep -q "^rec	kern	gemm	$N	$((N * 20000))	" "$WORK/many.tds" || die "kernel count/total"
rm -rf "$WORK/many"
exit 0

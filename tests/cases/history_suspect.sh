# The morning after an alarm (issue 41): every REGRESSED verdict of a history names the
# suspect range -- the last good and the first bad run, their commits and dates as the
# database holds them -- with a ready `git bisect start BAD GOOD` line, and with
# --meta commit_url=URL{commit} links to both commits in report.md, the PDF (link
# annotations) and the workbook (hyperlinks). Real nightly series (tests/data/nightly):
# nights 10-21, the slowdown appears at run 21.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/nightly"
DB="$WORK/runs.db"
URL='https://git.example.org/tracedoc/commit/{commit}'
for i in $(seq 10 21); do
    fmt=json
    [ "$i" = 21 ] && fmt=json,md,pdf,xlsx
    SOURCE_DATE_EPOCH=$((1767225600 + i * 86400)) "$TD" report "$D/run$i.summary.json" -o "$WORK/n$i" \
        --format $fmt --template nightly --history "$DB" --meta commit_url="$URL" >"$WORK/v$i" 2>"$WORK/e$i"
    rc=$?
    want=0
    [ "$i" = 21 ] && want=1
    [ "$rc" = "$want" ] || { cat "$WORK/e$i" "$WORK/v$i"; die "night $i: exit $rc, expected $want"; }
done
# the database's own record of the two runs (sqlite3, not tracedoc)
good=$(sqlite3 "$DB" "select id || ' ' || commit_id || ' ' || date(run_time, 'unixepoch') from runs where commit_id = 'run20'")
bad=$(sqlite3 "$DB" "select id || ' ' || commit_id || ' ' || date(run_time, 'unixepoch') from runs where commit_id = 'run21'")
[ -n "$good" ] && [ -n "$bad" ] || die "runs not in the database"
set -- $good; gid=$1 gc=$2 gd=$3
set -- $bad; bid=$1 bc=$2 bd=$3
want="changed between run $gid (last good, commit $gc, $gd) and run $bid (first bad, commit $bc, $bd)"
grep -qF "Suspect range: $want; git bisect start $bc $gc." "$WORK/v21" || { cat "$WORK/v21"; echo "want: $want"; die "verdict"; }
$PY - "$WORK/n21" "$want" "$bc" "$gc" "$URL" <<'PY' || die "documents"
import json, re, sys, zipfile
d, want, bc, gc, url = sys.argv[1:]
s = json.load(open(d + "/summary.json"))
su = s["suspect"]
assert su["range"] == want and su["bisect"] == "git bisect start %s %s" % (bc, gc), su
assert su["first_bad_commit"] == bc and su["last_good_commit"] == gc, su
links = [url.replace("{commit}", bc), url.replace("{commit}", gc)]
assert [su["first_bad_url"], su["last_good_url"]] == links, su
# every regression the verdict counts began at run 21 (the series' one change)
assert all(c["since"] == bc for c in s["changes"] if c["direction"] == "regressed")
md = open(d + "/report.md").read()
for c, u in zip((bc, gc), links):
    assert "[%s](<%s>)" % (c, u) in md, md[:600]
assert "`git bisect start %s %s`" % (bc, gc) in md
pdf = open(d + "/report.pdf", "rb").read()
uris = [u.decode() for u in re.findall(rb"/URI\s*\(([^)]*)\)", pdf)]
assert uris == links, uris
z = zipfile.ZipFile(d + "/report.xlsx")
rels = "".join(z.read(n).decode() for n in z.namelist() if "worksheets/_rels" in n)
targets = re.findall(r'Target="(https?://[^"]+)"', rels)
assert targets == links, targets
PY
# an OK night has no suspect range
grep -q '^OK' "$WORK/v15" || die "night 15 not OK"
$PY -c 'import json,sys; s=json.load(open(sys.argv[1])); assert "suspect" not in s' "$WORK/n15/summary.json" || die "suspect on an OK night"
exit 0

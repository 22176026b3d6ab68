#!/usr/bin/env bash
# The man page (doc/tracedoc.1) against what the program says about itself: every option
# that `tracedoc --help` or a `tracedoc COMMAND --help` prints is an entry (.TP tag) of
# the man page's OPTIONS section and every option entry there is in some --help; every
# literal value a --help offers (`--format ...,md,junit`, `--warmup auto|N|none`) is named
# in the man page's OPTIONS; the commands of --help are the entries of COMMANDS and
# lines of the SYNOPSIS; `.TH` carries the version `--version` prints; there is a SEE ALSO
# section. The man page is written by hand, so this is what keeps it from drifting.
. "$ROOT/tests/lib.sh"
MAN="$ROOT/doc/tracedoc.1"
[ -f "$MAN" ] || die "doc/tracedoc.1 missing"
"$TD" --help >"$WORK/help.txt" || die "tracedoc --help failed"
"$TD" --version >"$WORK/version.txt" || die "tracedoc --version failed"
cmds=$(sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' "$WORK/help.txt")
[ -n "$cmds" ] || die "no commands in tracedoc --help"
for c in $cmds; do
    "$TD" "$c" --help >"$WORK/help-$c.txt" || die "tracedoc $c --help failed"
done
$PY - "$MAN" "$WORK" $cmds <<'PYEOF'
import re, sys
man_path, work, cmds = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []

# --- what --help says: options (leading "-x, --name" of a line indented by two), the
# literal values of their placeholders and of "subset of a,b,c" lists, per command
OPT = re.compile(r"^  (-[A-Za-z], )?(--[a-z][a-z-]*)(.*)$")
help_opts = {}      # option -> commands whose help lists it ("" = tracedoc --help)
values = {}         # option -> literal values offered
for c in [""] + cmds:
    text = open("%s/help%s.txt" % (work, "-" + c if c else "")).read()
    for line in text.splitlines():
        m = OPT.match(line)
        if not m:
            continue
        names = [m.group(2)] + ([m.group(1)[:-2]] if m.group(1) else [])
        rest = m.group(3)
        spec = rest.split("  ")[0].strip()
        desc = rest[len(spec):]
        lits = set()
        # a placeholder of literals: "a4|letter", "auto|N|none", "text|json|csv", "chrome"
        if spec and re.fullmatch(r"[A-Za-z0-9|]+", spec):
            lits |= {w for w in spec.split("|") if re.fullmatch(r"[a-z][a-z0-9]*", w)}
        sub = re.search(r"subset of ([a-z0-9,]+)", desc)
        if sub:
            lits |= set(sub.group(1).split(","))
        for n in names:
            help_opts.setdefault(n, set()).add(c)
            values.setdefault(names[0], set()).update(lits)

# --- what the man page says
src = open(man_path).read()
def plain(s):
    s = re.sub(r"\\f[BIRP]", "", s)
    return s.replace("\\-", "-").replace("\\(em", "-").replace("\\&", "")
sections = {}
cur = None
for line in src.splitlines():
    if line.startswith(".SH "):
        cur = line[4:].strip().strip('"')
        sections[cur] = []
    elif cur is not None:
        sections[cur].append(line)
def tags(sec):
    lines = sections.get(sec, [])
    return [plain(lines[i + 1]) for i, l in enumerate(lines[:-1]) if l.strip() == ".TP"]
man_opts = {}
for t in tags("OPTIONS"):
    for n in re.findall(r'(?:^\.[A-Z]+ |[ "])(--?[A-Za-z][A-Za-z-]*)', t):
        man_opts.setdefault(n, t)
if not man_opts:
    bad.append("the man page has no OPTIONS entries (.TP tags)")
for n in sorted(help_opts):
    if n not in man_opts:
        where = ", ".join(sorted("tracedoc --help" if c == "" else "tracedoc %s --help" % c
                                 for c in help_opts[n]))
        bad.append("option %s (in %s) is not an entry of the man page's OPTIONS" % (n, where))
for n in sorted(man_opts):
    if n not in help_opts:
        bad.append("the man page's OPTIONS has %s, which no --help lists (tag: %s)" % (n, man_opts[n]))
opt_text = plain("\n".join(sections.get("OPTIONS", [])))
for n in sorted(values):
    for v in sorted(values[n]):
        if not re.search(r"(?<![A-Za-z0-9_.-])%s(?![A-Za-z0-9_]|\.[A-Za-z])" % re.escape(v), opt_text):
            bad.append("value '%s' of %s (--help) is not named in the man page's OPTIONS" % (v, n))

# commands: COMMANDS entries and SYNOPSIS lines, both ways
man_cmds = [plain(t).split()[1] for t in tags("COMMANDS") if len(t.split()) > 1]
for c in cmds:
    if c not in man_cmds:
        bad.append("command %s (tracedoc --help) is not an entry of the man page's COMMANDS" % c)
for c in man_cmds:
    if c not in cmds:
        bad.append("the man page's COMMANDS has %s, which tracedoc --help does not list" % c)
syn = plain("\n".join(sections.get("SYNOPSIS", [])))
for c in cmds:
    if not re.search(r"^\.B tracedoc %s\s*$" % re.escape(c), syn, re.M):
        bad.append("command %s is not in the man page's SYNOPSIS" % c)

# .TH carries the version; SEE ALSO exists
version = open(work + "/version.txt").read().split()[-1]
th = [l for l in src.splitlines() if l.startswith(".TH ")]
if not th or version not in th[0]:
    bad.append(".TH line %r does not carry the version %s (tracedoc --version)"
               % (th[0] if th else None, version))
if "SEE ALSO" not in sections:
    bad.append("the man page has no SEE ALSO section")

for b in bad:
    print("man_help: " + b)
sys.exit(1 if bad else 0)
PYEOF

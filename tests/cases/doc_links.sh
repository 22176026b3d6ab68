#!/usr/bin/env bash
# The README and the reference pages in doc/ link to each other and to files of the
# repository: every relative link must reach an existing file, and every #anchor a
# heading of the page it names (GitHub's slugs), so that moving a section or renaming a
# file does not leave a dead link behind.
. "$ROOT/tests/lib.sh"
cd "$ROOT" || exit 1
$PY - README.md doc/*.md <<'PYEOF'
import os, re, sys
def slugs(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6} (.*)", line)
        if m:
            t = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(t.replace(" ", "-"))
    return out
bad = 0
for f in sys.argv[1:]:
    text = re.sub(r"```.*?```", "", open(f, encoding="utf-8").read(), flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        url = m.group(1)
        if re.match(r"[a-z]+:", url):
            continue
        path, _, anchor = url.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(target):
            print("%s: link to a missing file: %s" % (f, url)); bad += 1
        elif anchor and target.endswith(".md") and anchor not in slugs(target):
            print("%s: link to a missing heading: %s" % (f, url)); bad += 1
sys.exit(1 if bad else 0)
PYEOF

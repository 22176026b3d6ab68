# make install into a staging DESTDIR: the binary, templates, fonts, man page and bash
# completion land where Debian users expect them, and the installed binary finds its data
# relative to itself (no source tree, no TRACEDOC_DATA).
. "$ROOT/tests/lib.sh"
command -v make >/dev/null || { echo "make not installed"; exit 77; }
b=$(basename "$(dirname "$TD")")
make -s -C "$ROOT" install BUILD="$b" PREFIX=/usr DESTDIR="$WORK/stage" >"$WORK/make.log" 2>&1 ||
    { cat "$WORK/make.log"; die "make install"; }
S=$WORK/stage/usr
for f in bin/tracedoc share/tracedoc/templates/bug-report.tdt share/tracedoc/templates/manager.tdt \
    share/tracedoc/templates/nightly.tdt share/tracedoc/fonts/DejaVuSans.ttf share/tracedoc/fonts/LICENSE-DejaVu share/man/man1/tracedoc.1.gz \
    share/bash-completion/completions/tracedoc; do
    [ -f "$S/$f" ] || die "not installed: $f"
done
[ -x "$S/bin/tracedoc" ] || die "binary not executable"
[ ! -e "$S/share/man/man1/tracedoc.1" ] || die "man page installed uncompressed"
gzip -dc "$S/share/man/man1/tracedoc.1.gz" | cmp - "$ROOT/doc/tracedoc.1" || die "man page: not doc/tracedoc.1 gzipped"
# the installed binary, moved away from the source tree, finds templates and fonts
mv "$WORK/stage" "$WORK/elsewhere"
S=$WORK/elsewhere/usr
(cd "$WORK" && env -u TRACEDOC_DATA "$S/bin/tracedoc" report "$ROOT/examples/hta_nccl_data.json.gz" \
    --template manager -o "$WORK/out") 2>"$WORK/err" || { cat "$WORK/err"; die "installed report"; }
[ -s "$WORK/out/report.pdf" ] && [ -s "$WORK/out/report.xlsx" ] || die "installed report: documents missing"
strings "$WORK/out/report.pdf" | grep -q DejaVu || die "PDF without the shipped fonts"
# it used the installed data, not the source tree: a template only the staged copy has
printf 'documents = json\n' >"$S/share/tracedoc/templates/only-installed.tdt"
"$S/bin/tracedoc" report "$ROOT/examples/hta_nccl_data.json.gz" --template only-installed -o "$WORK/o2" ||
    die "template from the installed data directory"
# the man page renders without warnings; the completion knows commands and options
if command -v man >/dev/null; then
    MANWIDTH=80 man --warnings -l "$S/share/man/man1/tracedoc.1.gz" >"$WORK/man.txt" 2>"$WORK/man.err" || die "man"
    [ -s "$WORK/man.err" ] && { cat "$WORK/man.err"; die "man page warnings"; }
    grep -q "EXIT STATUS" "$WORK/man.txt" || die "man page content"
    # every command of --help is in the man page's synopsis and COMMANDS; every exit status too
    for c in $("$S/bin/tracedoc" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
        grep -q "^       tracedoc $c" "$WORK/man.txt" || die "man page synopsis lacks $c"
        grep -q "^       $c\b" "$WORK/man.txt" || die "man page COMMANDS lacks $c"
    done
    codes=$(sed -n '/^## Exit status/,/^## /p' "$ROOT/doc/commands.md" | sed -n 's/^| \([0-9]\) |.*/\1/p')
    [ -n "$codes" ] || die "doc/commands.md has no exit status table"
    for code in $codes; do
        sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$WORK/man.txt" | grep -q "^       $code" || die "man page lacks exit status $code"
    done
fi
cat >"$WORK/comp.sh" <<EOS
PATH="$S/bin:\$PATH"
. "$S/share/bash-completion/completions/tracedoc"
COMP_WORDS=(tracedoc re); COMP_CWORD=1; _tracedoc; echo "\${COMPREPLY[*]}"
COMP_WORDS=(tracedoc summary --ta); COMP_CWORD=2; _tracedoc; echo "\${COMPREPLY[*]}"
COMP_WORDS=(tracedoc flame --tit); COMP_CWORD=2; _tracedoc; echo "\${COMPREPLY[*]}"
COMP_WORDS=(tracedoc diff --pa); COMP_CWORD=2; _tracedoc; echo "[\${COMPREPLY[*]}]"
EOS
bash "$WORK/comp.sh" >"$WORK/comp.out" 2>&1 || { cat "$WORK/comp.out"; die "completion script"; }
[ "$(sed -n 1p "$WORK/comp.out")" = report ] || { cat "$WORK/comp.out"; die "completion of the command"; }
[ "$(sed -n 2p "$WORK/comp.out")" = "--table" ] || { cat "$WORK/comp.out"; die "completion of summary --ta"; }
[ "$(sed -n 3p "$WORK/comp.out")" = "--title" ] || die "completion of flame --tit"
[ "$(sed -n 4p "$WORK/comp.out")" = "[]" ] || die "diff --pa completes to an option diff does not take"
# uninstall removes what install wrote, and the directories it made (here all of them,
# up to the stage); a directory that was there before stays
mv "$WORK/elsewhere" "$WORK/stage"
make -s -C "$ROOT" uninstall BUILD="$b" PREFIX=/usr DESTDIR="$WORK/stage" || die "make uninstall"
[ ! -e "$WORK/stage" ] || { find "$WORK/stage"; die "uninstall left files or directories"; }
mkdir -p "$WORK/st2/usr/bin" "$WORK/st2/usr/share/man/man1" && : >"$WORK/st2/usr/bin/other"
make -s -C "$ROOT" install BUILD="$b" PREFIX=/usr DESTDIR="$WORK/st2" FONTS=system >"$WORK/make.log" 2>&1 ||
    { cat "$WORK/make.log"; die "make install FONTS=system"; }
# FONTS=system: Debian's fonts-dejavu-core files (the bundled ones are copies of them)
for f in "$ROOT"/fonts/*.ttf; do
    l="$WORK/st2/usr/share/tracedoc/fonts/$(basename "$f")"
    [ -L "$l" ] && cmp -s "$l" "$f" || die "FONTS=system: $l is not a link to the system's copy"
done
"$WORK/st2/usr/bin/tracedoc" report "$ROOT/examples/hta_nccl_data.json.gz" --format pdf -o "$WORK/o3" ||
    die "report with the system's fonts"
strings "$WORK/o3/report.pdf" | grep -q DejaVu || die "PDF without DejaVu (FONTS=system)"
make -s -C "$ROOT" uninstall BUILD="$b" PREFIX=/usr DESTDIR="$WORK/st2" || die "make uninstall 2"
[ "$(cd "$WORK/st2" && find . | sort | tr '\n' ' ')" = ". ./usr ./usr/bin ./usr/bin/other ./usr/share ./usr/share/man ./usr/share/man/man1 " ] ||
    { find "$WORK/st2"; die "uninstall removed a directory it did not make, or left one it made"; }
# packagers' flags add to the project's (make CFLAGS=-O1 used to drop -Isrc and fail)
make -s -C "$ROOT" BUILD="$WORK/bf" CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2 "$WORK/bf/obj/base/alloc.o" ||
    die "make CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2"
line=$(make -s -n -C "$ROOT" BUILD="$WORK/bf2" CFLAGS=-O1 CPPFLAGS=-D_FORTIFY_SOURCE=2 \
    LDFLAGS=-Wl,-z,relro "$WORK/bf2/obj/base/alloc.o" "$WORK/bf2/tracedoc" | grep -- "-c -o .*alloc.o")
for want in -D_FORTIFY_SOURCE=2 -Isrc -Wall -Werror "-O2 -g -O1"; do
    case "$line" in *"$want"*) ;; *) die "compile line lacks '$want': $line" ;; esac
done
make -s -n -C "$ROOT" BUILD="$WORK/bf2" LDFLAGS=-Wl,-z,relro "$WORK/bf2/tracedoc" | grep -q -- "-o $WORK/bf2/tracedoc .*-Wl,-z,relro" ||
    die "link line lacks LDFLAGS"
exit 0

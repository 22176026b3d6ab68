# SambaTune stack tracing: the shipped synthetic example is what the generator makes
# (deterministic for a seed), and its summary and Chrome report match the goldens.
. "$ROOT/tests/lib.sh"
$PY "$ROOT/tools/gen_samba.py" --seed 7 --layers 4 --steps 3 "$WORK/gen" || die "generator failed"
diff -r "$WORK/gen" "$ROOT/examples/sambanova/decoder" >/dev/null || die "examples/sambanova/decoder is not what tools/gen_samba.py makes"
"$TD" summary --format json "$ROOT/examples/sambanova/decoder" >"$WORK/summary.json" || die summary
sed -i 's#"path": "[^"]*"#"path": "decoder"#' "$WORK/summary.json"
golden samba/decoder_summary.json "$WORK/summary.json" || exit 1
"$TD" stack-trace "$ROOT/examples/sambanova/decoder" -o "$WORK/decoder_chrome_tracing_report.json" || die stack-trace
sed -i 's#"generator": "tracedoc [^"]*"#"generator": "tracedoc"#' "$WORK/decoder_chrome_tracing_report.json"
golden samba/decoder_chrome_tracing_report.json "$WORK/decoder_chrome_tracing_report.json" || exit 1

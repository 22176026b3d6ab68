# bash completion for tracedoc. Commands and each command's options are read from
# 'tracedoc --help' and 'tracedoc COMMAND --help', so they always match the binary.
_tracedoc()
{
    local cur prev cmd words
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        words=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case "$prev" in
    --template) COMPREPLY=($(compgen -W "bug-report nightly manager" -- "$cur") $(compgen -f -X '!*.tdt' -- "$cur")); return ;;
    --stacks) COMPREPLY=($(compgen -W "cpu device ops compile source opname ipu sections" -- "$cur")); return ;;
    --warmup) COMPREPLY=($(compgen -W "auto none" -- "$cur")); return ;;
    --critical-path) COMPREPLY=($(compgen -W "sync hta" -- "$cur")); return ;;
    --paper) COMPREPLY=($(compgen -W "a4 letter" -- "$cur")); return ;;
    --files-from) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --capture-traces) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o|--output)
        case "$cmd" in report|diff) COMPREPLY=($(compgen -d -- "$cur")) ;; *) COMPREPLY=($(compgen -f -- "$cur")) ;; esac
        return ;;
    --format)
        case "$cmd" in summary) COMPREPLY=($(compgen -W "text json csv" -- "$cur")) ;;
        export) COMPREPLY=($(compgen -W "chrome" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "pdf xlsx svg json csv folded md junit pdf,xlsx" -- "$cur")) ;; esac
        return ;;
    esac
    if [[ "$cur" == -* ]]; then
        # the options of the command: the entries of its --help's option list (lines
        # "  -o, --output ..." / "  --name ..."), not options its text mentions
        words=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
            sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' | sort -u)
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _tracedoc tracedoc

/* read/folded.c - see read/folded.h. The file is streamed line by line into a flamegraph tree
 * (summary/flame.h): memory grows with the distinct frames, never with the number of lines.
 *
 * Counts follow FlameGraph's flamegraph.pl: a line is "STACK COUNT" or, as difffolded.pl
 * writes, "STACK COUNT1 COUNT2" (the second count is drawn, the first is the baseline:
 * the flame becomes differential, coloured by the change as flamegraph.pl does), the
 * count separated by spaces or tabs, an integer or a decimal ("1.25", as
 * stackcollapse-chrome-tracing.py writes durations). Decimal counts are kept to 1/1000
 * (the flame's unit becomes 1000). A line with a negative count, which flamegraph.pl
 * ignores as invalid, is skipped and counted in a warning; zero counts add nothing. */
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE /* sched_getaffinity */
#include "read/folded.h"
#include "io/instream.h"
#include "io/peek.h"
#include "summary/flame.h"
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAC 1000 /* fixed-point unit of decimal counts */

/* A count token [p, p+n): -1 bad, 0 integer, 1 decimal, 2 negative (well formed). */
static int count_kind(const char *p, size_t n)
{
    int neg = 0, dot = 0;
    size_t i = 0, digits = 0;
    if (i < n && p[i] == '-')
        neg = 1, i++;
    for (; i < n; i++) {
        if (p[i] >= '0' && p[i] <= '9')
            digits++;
        else if (p[i] == '.' && !dot && digits)
            dot = 1;
        else
            return -1;
    }
    if (!digits)
        return -1;
    return neg ? 2 : dot;
}

static size_t token_start(const char *l, size_t end)
{
    size_t j = end;
    while (j > 0 && l[j - 1] != ' ' && l[j - 1] != '\t')
        j--;
    return j;
}

static int looks_folded(const char *p, size_t n)
{
    /* first non-blank line: some text, blanks, a count */
    size_t i = 0;
    while (i < n && (p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i >= n)
        return 0;
    unsigned char c0 = (unsigned char)p[i];
    if (c0 == '{' || c0 == 0x1f || c0 < 0x09)
        return 0;
    if (c0 == '[') {
        /* a JSON array ([{..., [] ...), or a stack whose first frame is bracketed, as
         * XLA's "[GPU active];..." and perf's "[unknown];..." are */
        size_t k = i + 1;
        while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n' || p[k] == '\r'))
            k++;
        if (k >= n || strchr("{[]\"-0123456789", p[k]))
            return 0;
    }
    const char *nl = memchr(p + i, '\n', n - i);
    size_t end = nl ? (size_t)(nl - p) : n;
    if (end > i && p[end - 1] == '\r')
        end--;
    size_t j = token_start(p, end);
    return j < end && j > i + 1 && count_kind(p + j, end - j) >= 0;
}

/* Value of a count token in units of 1/unit (unit 1 or FRAC); 0 on overflow. */
static int count_value(const char *p, size_t n, int64_t unit, int64_t *v)
{
    int64_t x = 0;
    size_t i = 0;
    for (; i < n && p[i] != '.'; i++) {
        if (x > (INT64_MAX - 9) / 10)
            return 0;
        x = x * 10 + (p[i] - '0');
    }
    if (x > INT64_MAX / unit)
        return 0;
    x *= unit;
    int64_t f = 0, scale = unit;
    int round = 0;
    for (i++; i < n; i++) {
        if (scale > 1) {
            scale /= 10;
            f += (p[i] - '0') * scale;
        } else {
            round = p[i] >= '5';
            break;
        }
    }
    if (unit > 1)
        x += f + round;
    *v = x;
    return x >= 0;
}

#define NBATCH 64 /* stacks handed to the tree together (td_flametree_add_many) */

typedef struct fstate {
    const char *name;
    td_flame *fl;
    size_t line, negative;
    td_stackval b[NBATCH]; /* parsed, not yet added (they point into the text) */
    size_t bline[NBATCH], nb;
} fstate;

static td_status too_large(fstate *st, size_t line, td_err *e)
{
    return td_fail(e, TD_E_FORMAT, "%s: line %zu: count too large (the counts add up to "
                   "more than 2^63%s)", st->name, line,
                   st->fl->unit == FRAC ? " thousandths" : "");
}

/* Add the batch of parsed stacks to the tree. */
static td_status add_batch(fstate *st, td_err *e)
{
    size_t n = st->nb, k = td_flametree_add_many(st->fl->tree, st->b, n);
    st->nb = 0;
    return k < n ? too_large(st, st->bline[k], e) : TD_OK;
}

/* Start of the token ending at end when it may be a count (its bytes all in
 * "0-9.-", preceded by a blank or the start of the line); end when it cannot be one.
 * Stops at the first other byte, so a long last frame is not scanned to its start. */
static size_t count_start(const char *l, size_t end)
{
    size_t j = end;
    while (j > 0) {
        unsigned char ch = (unsigned char)l[j - 1];
        if ((ch >= '0' && ch <= '9') || ch == '.' || ch == '-')
            j--;
        else if (ch == ' ' || ch == '\t')
            return j;
        else
            return end;
    }
    return j;
}

/* One line (no newline). */
static td_status parse_line(fstate *st, const char *l, size_t len, td_err *e)
{
    if (len && l[len - 1] == '\r')
        len--;
    if (!len)
        return TD_OK;
    size_t j = count_start(l, len);
    int k = j < len ? count_kind(l + j, len - j) : -1;
    size_t stack_end = j, j1 = 0, b1 = 0;
    int k1 = -1;
    if (k >= 0) {
        /* difffolded: "STACK COUNT1 COUNT2": the stack ends before the first count */
        size_t b = stack_end;
        while (b > 0 && (l[b - 1] == ' ' || l[b - 1] == '\t'))
            b--;
        j1 = count_start(l, b);
        if (j1 > 0 && j1 < b && (k1 = count_kind(l + j1, b - j1)) >= 0) {
            stack_end = j1;
            b1 = b;
        }
    }
    while (stack_end > 0 && (l[stack_end - 1] == ' ' || l[stack_end - 1] == '\t'))
        stack_end--;
    td_status rc;
    if (k < 0 || stack_end == 0) {
        if ((rc = add_batch(st, e)) != TD_OK)
            return rc;
        return td_fail(e, TD_E_FORMAT, "%s: line %zu: expected 'frame;frame;... COUNT'",
                       st->name, st->line);
    }
    if (k == 2 || k1 == 2) {
        st->negative++;
        return TD_OK;
    }
    td_flame *fl = st->fl;
    if ((k == 1 || k1 == 1) && fl->unit != FRAC) {
        if ((rc = add_batch(st, e)) != TD_OK) /* they were counted in the old unit */
            return rc;
        td_flametree_scale(fl->tree, FRAC);
        fl->unit = FRAC;
    }
    int64_t v, bv = 0;
    if (k1 >= 0 && !fl->diff) { /* the first count is the baseline's: a differential flame */
        fl->diff = 1;
        fl->base_label = "(first count of each line)";
    }
    if (!count_value(l + j, len - j, fl->unit ? fl->unit : 1, &v) ||
        (k1 >= 0 && !count_value(l + j1, b1 - j1, fl->unit ? fl->unit : 1, &bv))) {
        if ((rc = add_batch(st, e)) != TD_OK)
            return rc;
        return too_large(st, st->line, e);
    }
    st->bline[st->nb] = st->line;
    st->b[st->nb++] = (td_stackval){l, stack_end, v, bv};
    return st->nb == NBATCH ? add_batch(st, e) : TD_OK;
}

static void finish(fstate *st, td_summary *s)
{
    if (st->negative) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %zu line%s with a negative count skipped (flamegraph.pl "
                 "ignores them too)", st->name, st->negative, st->negative == 1 ? "" : "s");
        td_sum_warning(s, msg);
    }
}

/* Lines of text[0..n); *used = bytes up to the end of the last whole line (all of it
 * when last: a final line may lack its newline). */
static td_status parse_lines(fstate *st, const char *text, size_t n, int last, size_t *used,
                             td_err *e)
{
    size_t i = 0;
    *used = 0;
    while (i < n) {
        const char *nl = memchr(text + i, '\n', n - i);
        if (!nl && !last)
            break;
        size_t end = nl ? (size_t)(nl - text) : n;
        st->line++;
        td_status rc = parse_line(st, text + i, end - i, e);
        if (rc != TD_OK)
            return rc;
        i = end + 1;
    }
    *used = i < n ? i : n;
    return add_batch(st, e); /* before the text goes */
}

/* A regular file is read a window at a time (WINDOW bytes, more for a longer line) into
 * one reused buffer, so the memory held stays one window whatever the file's size. (A
 * mapping would save the copy, but a file that another process truncates while it is
 * mapped kills the reader with SIGBUS; a short read here is an end of file.) */
#define WINDOW ((size_t)1 << 20)

/* Where read_lines takes its bytes: bytes [pos, to) of a file (to < 0: to its end), a
 * decoded stream (in: a gzipped file), or a stdio stream (f: a pipe, standard input). */
typedef struct src {
    int fd;
    off_t pos, to;
    td_in *in;
    FILE *f;
} src;

/* Up to n bytes into b: the count, 0 at the end, -1 with e filled. */
static ptrdiff_t src_read(src *r, const fstate *st, char *b, size_t n, td_err *e)
{
    if (r->in)
        return td_in_read(r->in, b, n, e);
    if (r->f) {
        size_t k = fread(b, 1, n, r->f);
        if (k == 0 && ferror(r->f)) {
            td_fail(e, TD_E_IO, "%s: read error: %s", st->name, strerror(errno));
            return -1;
        }
        return (ptrdiff_t)k;
    }
    if (r->to >= 0 && (off_t)n > r->to - r->pos)
        n = (size_t)(r->to - r->pos);
    for (;;) {
        ssize_t k = n ? pread(r->fd, b, n, r->pos) : 0;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            td_fail(e, TD_E_IO, "%s: cannot read at byte %lld: %s", st->name,
                    (long long)r->pos, strerror(errno));
            return -1;
        }
        r->pos += k;
        return k;
    }
}

/* The lines of r into st, a window at a time; stops early, returning TD_OK, once *stop is
 * set (never set: NULL). */
static td_status read_lines(src *r, fstate *st, const atomic_int *stop, td_err *e)
{
    size_t cap = WINDOW, have = 0; /* bytes of the buffer holding unparsed text */
    char *buf = malloc(cap);
    if (!buf)
        return td_fail(e, TD_E_NOMEM, "%s: no memory for a read buffer", st->name);
    td_status rc = TD_OK;
    for (;;) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed))
            break;
        if (have == cap) { /* a line longer than the window */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                rc = td_fail(e, TD_E_NOMEM, "%s: a line longer than %zu bytes", st->name, cap);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ptrdiff_t k = src_read(r, st, buf + have, cap - have, e);
        if (k < 0) {
            rc = e->code;
            break;
        }
        have += (size_t)k;
        int last = k == 0;
        size_t used;
        rc = parse_lines(st, buf, have, last, &used, e);
        if (rc != TD_OK || last)
            break;
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    free(buf);
    return rc;
}

/* Bytes [from, to) of fd (to < 0: to the end of the file). */
static td_status read_range(int fd, off_t from, off_t to, fstate *st, const atomic_int *stop,
                            td_err *e)
{
    src r = {fd, from, to, NULL, NULL};
    return read_lines(&r, st, stop, e);
}

/* A file of SPLIT_MIN bytes or more is read in two halves at once when there are two
 * cores: the second half (from the first line that starts at or after the middle) into a
 * tree of its own on a second thread, merged into the first's at the end
 * (td_flametree_merge: the drawn flame never depends on the order of the lines). Only a
 * second half read without incident is merged: one with an error, or whose counts came
 * in another unit than the first half's, is read again after the first half as if
 * there had been no split, so messages, line numbers and units are those of a reading
 * in order. */
#define SPLIT_MIN ((off_t)64 << 20)

typedef struct half {
    int fd;
    off_t from;
    fstate st;
    td_flame fl; /* the second half's own unit, differential flag and tree */
    atomic_int stop;
    td_status rc;
    td_err e;
} half;

static void *half_run(void *p)
{
    half *h = p;
    h->rc = read_range(h->fd, h->from, -1, &h->st, &h->stop, &h->e);
    return NULL;
}

/* Whether this process may run on two cores or more (taskset, cgroups' cpusets). */
static int two_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set) > 1;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/* Where the second half starts: just after the first newline at or after the middle of
 * the file; 0 when there is none in the MiB there (no split). */
static off_t split_at(int fd, off_t size)
{
    char b[65536];
    for (off_t pos = size / 2; pos < size / 2 + ((off_t)1 << 20);) {
        ssize_t k = pread(fd, b, sizeof b, pos);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        const char *nl = memchr(b, '\n', (size_t)k);
        if (nl)
            return pos + (nl - b) + 1 < size ? pos + (nl - b) + 1 : 0;
        pos += k;
    }
    return 0;
}

/* The second half's result joined to st's (the first half, read to h->from): 1 when
 * merged, 0 when it has to be read again. */
static int join_half(fstate *st, half *h)
{
    td_flame *fl = st->fl, *g = &h->fl;
    if (h->rc != TD_OK || (fl->unit ? fl->unit : 1) != (g->unit ? g->unit : 1) ||
        !td_flametree_merge(fl->tree, g->tree))
        return 0;
    if (g->diff && !fl->diff) {
        fl->diff = 1;
        fl->base_label = g->base_label;
    }
    st->line += h->st.line;
    st->negative += h->st.negative;
    return 1;
}

/* 1 when the file was read (rc set), 0 when it is not a regular file (read it otherwise). */
static int read_windows(FILE *f, fstate *st, td_status *rc, td_err *e)
{
    struct stat sb;
    int fd = fileno(f);
    if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
        return 0;
    off_t min = SPLIT_MIN;
    const char *tm = getenv("TD_SPLIT_MIN"); /* tests split small files */
    if (tm && atol(tm) > 0)
        min = (off_t)atol(tm);
    off_t mid = sb.st_size >= min && two_cores() ? split_at(fd, sb.st_size) : 0;
    half *h = mid ? calloc(1, sizeof *h) : NULL;
    if (h) {
        h->fd = fd;
        h->from = mid;
        h->fl = *st->fl;
        h->fl.tree = td_flametree_new();
        h->st = (fstate){.name = st->name, .fl = &h->fl};
        atomic_init(&h->stop, 0);
    }
    pthread_t th;
    if (h && pthread_create(&th, NULL, half_run, h) != 0) {
        td_flametree_free(h->fl.tree);
        free(h);
        h = NULL;
    }
    *rc = read_range(fd, 0, h ? mid : -1, st, NULL, e);
    if (h) {
        if (*rc != TD_OK) /* the first error in the file is the first half's */
            atomic_store(&h->stop, 1);
        pthread_join(th, NULL);
        if (*rc == TD_OK && !join_half(st, h))
            *rc = read_range(fd, mid, -1, st, NULL, e);
        td_flametree_free(h->fl.tree);
        free(h);
    }
    return 1;
}

td_status td_folded_parse(const char *name, const char *text, size_t n, td_summary *s,
                          td_flame *fl, td_err *e)
{
    if (!fl->tree)
        fl->tree = td_flametree_new();
    fstate st = {.name = name, .fl = fl};
    size_t used;
    td_status rc = parse_lines(&st, text, n, 1, &used, e);
    td_flametree_flush(fl->tree);
    if (rc != TD_OK)
        return rc;
    finish(&st, s);
    return TD_OK;
}

td_status td_folded_try_read(const char *path, const char *kind, td_summary **s, td_flame **fl,
                             td_err *e)
{
    *s = NULL;
    *fl = NULL;
    /* a look that loses nothing (io/peek.h): a pipe, FIFO, process substitution or "-"
     * that holds a trace gives its reader the same bytes */
    char head[4096];
    ssize_t k = td_peek(path, head, sizeof head);
    if (k < 0 && errno == EISDIR)
        return TD_OK; /* a directory of traces */
    if (k < 0)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    const char *name = strcmp(path, "-") ? path : "stdin"; /* as the trace reader says it */
    td_in *gz = NULL;
    FILE *f = NULL;
    if (k >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b) {
        /* gzipped: looked at decoded. Only a file that can be opened again: the bytes of
         * a pipe, once decoded here, could not be given back to the trace reader */
        if (td_peek_once(path))
            return TD_OK;
        td_err ge = {0};
        const unsigned char *p;
        ptrdiff_t n;
        if (!(gz = td_in_open_file(path, name, &ge)))
            return TD_OK; /* the trace reader says why */
        td_in_gunzip(gz);
        if ((n = td_in_peek(gz, sizeof head, &p, &ge)) < 0 ||
            !looks_folded((const char *)p, (size_t)n)) {
            td_in_close(gz);
            return TD_OK;
        }
    } else if (!looks_folded(head, (size_t)k)) {
        return TD_OK;
    } else if (!(f = td_peek_fopen(path))) {
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    td_summary *sum = td_summary_new();
    td_flame *flame = td_sum_flame(sum, kind, name);
    flame->cycles = strcmp(kind, "ipu") == 0; /* IPU stacks count cycles */
    flame->tree = td_flametree_new();
    fstate st = {.name = name, .fl = flame};
    td_status rc = TD_OK;
    if (gz) {
        src r = {-1, 0, -1, gz, NULL};
        rc = read_lines(&r, &st, NULL, e);
        td_in_close(gz);
    } else if (!read_windows(f, &st, &rc, e)) { /* a pipe, standard input */
        src r = {-1, 0, -1, NULL, f};
        rc = read_lines(&r, &st, NULL, e);
    }
    if (f)
        fclose(f);
    td_flametree_flush(flame->tree);
    if (rc != TD_OK) {
        td_summary_free(sum);
        return rc;
    }
    finish(&st, sum);
    td_sum_set_str(sum, "inputs_label", "Input", name);
    *s = sum;
    *fl = flame;
    return TD_OK;
}

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
#include "io/bound.h"
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
        fl->unit = FRAC;
        if (!td_flametree_scale(fl->tree, FRAC)) /* the counts so far, in thousandths */
            return too_large(st, st->line, e);
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

/* Lines of text[0..n) that start before byte `starts` (SIZE_MAX: all); *used = bytes up
 * to the end of the last whole line read (all of it when last: a final line may lack its
 * newline). */
static td_status parse_lines(fstate *st, const char *text, size_t n, int last, size_t starts,
                             size_t *used, td_err *e)
{
    size_t i = 0;
    *used = 0;
    while (i < n && i < starts) {
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
 * decoded stream (in: a gzipped file), or a stdio stream (f: a pipe, standard input).
 * A chunk of a file (lim > 0) is the lines that start before byte lim: to is then lim at
 * first, moved on a little at a time (EXTEND) while the last of them is not whole, up
 * to size, the file's size. */
typedef struct src {
    int fd;
    off_t pos, to;
    td_in *in;
    FILE *f;
    off_t lim, size;
} src;

#define EXTEND ((off_t)64 << 10)

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

/* The lines of r into st, a window at a time, in the buffer *bufp of *capp bytes (grown
 * for a longer line; allocated when NULL, the caller frees it); stops early, returning
 * TD_OK, once *stop is set (never set: NULL). */
static td_status read_lines_in(src *r, fstate *st, const atomic_int *stop, char **bufp,
                               size_t *capp, td_err *e)
{
    size_t cap = *capp, have = 0; /* bytes of the buffer holding unparsed text */
    char *buf = *bufp;
    if (!buf && !(buf = malloc(cap = WINDOW)))
        return td_fail(e, TD_E_NOMEM, "%s: no memory for a read buffer", st->name);
    td_status rc = TD_OK;
    for (;;) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed))
            break;
        if (have == cap) { /* a line longer than the window */
            if (cap >= TD_BOUND_EVENT) { /* one line of a small gzip must not fill memory */
                rc = td_fail(e, TD_E_FORMAT, "%s: a line longer than %zu MiB", st->name,
                             TD_BOUND_EVENT >> 20);
                break;
            }
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
        if (k == 0 && r->lim && r->to < r->size && have) { /* a chunk's last line goes on */
            r->to = r->size - r->to > EXTEND ? r->to + EXTEND : r->size;
            continue;
        }
        have += (size_t)k;
        int last = k == 0;
        size_t used, starts = SIZE_MAX;
        if (r->lim) /* bytes of the buffer where this chunk's lines may start */
            starts = r->lim - (r->pos - (off_t)have) > 0
                         ? (size_t)(r->lim - (r->pos - (off_t)have)) : 0;
        rc = parse_lines(st, buf, have, last, starts, &used, e);
        if (rc != TD_OK || last || used >= starts)
            break;
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    *bufp = buf;
    *capp = cap;
    return rc;
}

static td_status read_lines(src *r, fstate *st, const atomic_int *stop, td_err *e)
{
    char *buf = NULL;
    size_t cap = 0;
    td_status rc = read_lines_in(r, st, stop, &buf, &cap, e);
    free(buf);
    return rc;
}

/* A regular file of SPLIT_MIN bytes or more is read on two threads when there are two
 * cores. The file is cut into chunks of CHUNK bytes (TD_SPLIT_CHUNK: tests cut small
 * files in small ones) that the two threads take in turn from a shared counter, each
 * the lines that start in it (the last one read to its end), so that the thread with
 * less to do takes more chunks: the caller's thread adds its lines to the tree, the
 * other to a stacks-only tree (td_flametree_new_stacks: each distinct stack summed, its
 * frames looked up once, when it is merged at the end). The drawn flame never depends
 * on the order of the lines. When anything went wrong in either (an error, counts in
 * different units, a merged total past 2^63), both results are dropped and the file is
 * read again in order, so messages, line numbers and units are those of a reading in
 * order. */
#define SPLIT_MIN ((off_t)64 << 20)
#define CHUNK ((off_t)1 << 20)

typedef struct chunks {
    int fd;
    off_t size, chunk;
    atomic_llong next; /* the next chunk to take */
    atomic_int stop;   /* set by a thread that failed: the other stops too */
} chunks;

typedef struct worker {
    chunks *c;
    fstate st;
    td_status rc;
    td_err e;
    long long taken; /* chunks */
} worker;

/* Where the first line that starts at or after `at` (> 0) and before `end` starts; -1
 * when none does (a line that starts at `at` is one after a newline at at - 1). */
static off_t line_start_in(int fd, off_t at, off_t end, td_err *e, const char *name)
{
    char b[4096];
    for (off_t pos = at - 1; pos < end - 1;) {
        size_t want = end - 1 - pos < (off_t)sizeof b ? (size_t)(end - 1 - pos) : sizeof b;
        ssize_t k = pread(fd, b, want, pos);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            td_fail(e, TD_E_IO, "%s: cannot read at byte %lld: %s", name, (long long)pos,
                    strerror(errno));
            return -2;
        }
        if (k == 0)
            return -1;
        const char *nl = memchr(b, '\n', (size_t)k);
        if (nl)
            return pos + (nl - b) + 1;
        pos += k;
    }
    return -1;
}

/* Chunks taken from c until none is left (or one failed): their lines into w->st. */
static void *work(void *p)
{
    worker *w = p;
    chunks *c = w->c;
    char *buf = NULL;
    size_t cap = 0;
    w->rc = TD_OK;
    for (;;) {
        if (atomic_load_explicit(&c->stop, memory_order_relaxed))
            break;
        off_t from = (off_t)atomic_fetch_add(&c->next, 1) * c->chunk;
        if (from >= c->size)
            break;
        w->taken++;
        off_t end = c->size - from > c->chunk ? from + c->chunk : c->size;
        off_t s = from ? line_start_in(c->fd, from, end, &w->e, w->st.name) : 0;
        if (s == -2)
            w->rc = w->e.code;
        else if (s >= 0) {
            src r = {c->fd, s, end, NULL, NULL, end, c->size};
            w->rc = read_lines_in(&r, &w->st, &c->stop, &buf, &cap, &w->e);
        }
        if (w->rc != TD_OK) {
            atomic_store(&c->stop, 1);
            break;
        }
    }
    free(buf);
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

/* The lines of fd (size bytes) read in chunks on two threads into st's tree: 1 when
 * done, 0 when they have to be read in order (st as it was given: nothing added). */
static int read_chunks(int fd, off_t size, fstate *st, td_folded_how *how)
{
    td_flame *fl = st->fl, saved = *fl, other = *fl;
    chunks c = {.fd = fd, .size = size};
    const char *ck = getenv("TD_SPLIT_CHUNK");
    c.chunk = ck && atol(ck) > 0 ? (off_t)atol(ck) : CHUNK;
    atomic_init(&c.next, 0);
    atomic_init(&c.stop, 0);
    other.tree = td_flametree_new_stacks();
    worker a = {.c = &c, .st = *st}, b = {.c = &c, .st = {.name = st->name, .fl = &other}};
    pthread_t th;
    if (pthread_create(&th, NULL, work, &b) != 0) {
        td_flametree_free(other.tree);
        return 0;
    }
    work(&a);
    pthread_join(th, NULL);
    how->threads = 2;
    how->chunks = a.taken + b.taken;
    how->second = b.taken;
    int ok = a.rc == TD_OK && b.rc == TD_OK &&
             (fl->unit ? fl->unit : 1) == (other.unit ? other.unit : 1) &&
             td_flametree_merge(fl->tree, other.tree);
    td_flametree_free(other.tree);
    if (!ok) { /* read again in order, from nothing */
        how->again = 1;
        td_flametree_free(fl->tree);
        *fl = saved;
        fl->tree = td_flametree_new();
        return 0;
    }
    if (other.diff && !fl->diff) {
        fl->diff = 1;
        fl->base_label = other.base_label;
    }
    st->line = a.st.line + b.st.line;
    st->negative = a.st.negative + b.st.negative;
    return 1;
}

/* 1 when the file was read (rc set), 0 when it is not a regular file (read it otherwise). */
static int read_windows(FILE *f, fstate *st, td_folded_how *how, td_status *rc, td_err *e)
{
    struct stat sb;
    int fd = fileno(f);
    if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
        return 0;
    off_t min = SPLIT_MIN;
    const char *tm = getenv("TD_SPLIT_MIN"); /* tests split small files */
    if (tm && atol(tm) > 0)
        min = (off_t)atol(tm);
    if (sb.st_size >= min && two_cores() && read_chunks(fd, sb.st_size, st, how)) {
        *rc = TD_OK;
        return 1;
    }
    src r = {fd, 0, -1, NULL, NULL, 0, 0};
    *rc = read_lines(&r, st, NULL, e);
    return 1;
}

td_status td_folded_parse(const char *name, const char *text, size_t n, td_summary *s,
                          td_flame *fl, td_err *e)
{
    if (!fl->tree)
        fl->tree = td_flametree_new();
    fstate st = {.name = name, .fl = fl};
    size_t used;
    td_status rc = parse_lines(&st, text, n, 1, SIZE_MAX, &used, e);
    td_flametree_flush(fl->tree);
    if (rc != TD_OK)
        return rc;
    finish(&st, s);
    return TD_OK;
}

td_status td_folded_try_read(const char *path, const char *kind, td_summary **s, td_flame **fl,
                             td_folded_how *how, td_err *e)
{
    td_folded_how none;
    if (!how)
        how = &none;
    *how = (td_folded_how){.threads = 1};
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
        src r = {-1, 0, -1, gz, NULL, 0, 0};
        rc = read_lines(&r, &st, NULL, e);
        td_in_close(gz);
    } else if (!read_windows(f, &st, how, &rc, e)) { /* a pipe, standard input */
        src r = {-1, 0, -1, NULL, f, 0, 0};
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

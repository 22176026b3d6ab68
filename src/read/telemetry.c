/* read/telemetry.c - aiu-smi / nvidia-smi dmon text, nvidia-smi --query-gpu CSV and
 * generic timestamped CSV (see read/telemetry.h and doc/formats.md "Telemetry").
 *
 * dmon layout: a first '#' line of column names, an optional second '#' line of units,
 * then rows of whitespace-separated values ('-' = no value); header lines repeated later
 * are skipped. `-o DT` adds Date (YYYYMMDD) and Time (HH:MM:SS) columns. CSV layout: a
 * header row (comma separated; "name [unit]" or "name (unit)"), then rows; values may
 * carry their unit ("250.12 W", "45 %"); "[N/A]", "N/A" and empty cells are no value.
 * Times are read as UTC. Undated rows are one sample a second per device (the monitors'
 * default), from --telemetry-start or from 0. */
#define _GNU_SOURCE
#include "read/telemetry.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAXCOLS 64

enum { COL_METRIC, COL_TIME, COL_DATE, COL_DATETIME, COL_DEVICE, COL_SKIP };

typedef struct {
    int role;
    char name[64];
    char unit[16];
    uint32_t metric;
} column;

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* digits: n of them at p -> v; returns p after them or NULL. */
static const char *digits(const char *p, const char *end, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, p++) {
        if (p >= end || !isdigit((unsigned char)*p))
            return NULL;
        *v = *v * 10 + (*p - '0');
    }
    return p;
}

/* HH:MM:SS[.frac] -> ns of the day */
static const char *clock_of(const char *p, const char *end, int64_t *ns)
{
    int h, m, s;
    if (!(p = digits(p, end, 2, &h)) || p >= end || *p++ != ':' ||
        !(p = digits(p, end, 2, &m)) || p >= end || *p++ != ':' ||
        !(p = digits(p, end, 2, &s)) || h > 23 || m > 59 || s > 60)
        return NULL;
    int64_t frac = 0, scale = 1000000000;
    if (p < end && (*p == '.' || *p == ',')) {
        p++;
        while (p < end && isdigit((unsigned char)*p)) {
            scale /= 10;
            frac += (*p++ - '0') * scale;
        }
    }
    *ns = ((int64_t)h * 3600 + m * 60 + s) * 1000000000LL + frac;
    return p;
}

int td_parse_wallclock(const char *s, size_t n, int64_t *ns)
{
    const char *p = s, *end = s + n;
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    int y, mo, d;
    const char *q = digits(p, end, 4, &y);
    if (q && q < end && (*q == '-' || *q == '/') && (q = digits(q + 1, end, 2, &mo)) && q < end &&
        (*q == '-' || *q == '/') && (q = digits(q + 1, end, 2, &d)) && mo >= 1 && mo <= 12 &&
        d >= 1 && d <= 31 && y >= 1900 && y <= 2261) { /* ns since 1970 fit in 64 bits */
        int64_t day = days_from_civil(y, (unsigned)mo, (unsigned)d), tod = 0;
        if (q < end && (*q == 'T' || *q == ' ')) {
            q = clock_of(q + 1, end, &tod);
            if (!q)
                return 0;
        }
        if (q < end && (*q == 'Z' || *q == 'z'))
            q++;
        if (q != end)
            return 0;
        *ns = day * 86400LL * 1000000000LL + tod;
        return 1;
    }
    /* seconds since the epoch */
    char buf[64];
    if ((size_t)(end - p) >= sizeof buf || end == p)
        return 0;
    memcpy(buf, p, (size_t)(end - p));
    buf[end - p] = 0;
    char *e;
    double v = strtod(buf, &e);
    if (*e || !(v > 1e8 && v < 1e11))
        return 0;
    *ns = (int64_t)(v * 1e9 + 0.5);
    return 1;
}

/* "pwr" + "W" -> kind. */
static td_tm_kind kind_of(const char *name, const char *unit)
{
    if (!strcasecmp(unit, "W") || !strcasecmp(unit, "mW"))
        return TD_TM_POWER;
    if (!strcasecmp(unit, "C") || !strcasecmp(unit, "degC"))
        return TD_TM_TEMP;
    if (!strcmp(unit, "%"))
        return TD_TM_UTIL;
    if (!strcasecmp(unit, "MiB") || !strcasecmp(unit, "MB") || !strcasecmp(unit, "GiB") ||
        !strcasecmp(unit, "GB") || !strcasecmp(unit, "KiB") || !strcasecmp(unit, "B"))
        return TD_TM_MEM;
    if (strstr(unit, "/s"))
        return TD_TM_BW;
    if (!strcasecmp(unit, "MHz") || !strcasecmp(unit, "GHz"))
        return TD_TM_CLOCK;
    if (strcasestr(name, "power") || !strcasecmp(name, "pwr"))
        return TD_TM_POWER;
    if (strcasestr(name, "temp"))
        return TD_TM_TEMP;
    if (strcasestr(name, "util"))
        return TD_TM_UTIL;
    return TD_TM_OTHER;
}

/* Unit guessed from a dmon column name when the file has no units line. */
static const char *unit_of_name(const char *n)
{
    if (!strcasecmp(n, "pwr") || strcasestr(n, "power"))
        return "W";
    if (strcasestr(n, "temp"))
        return "C";
    if (!strcasecmp(n, "sm") || !strcasecmp(n, "mem") || !strcasecmp(n, "enc") ||
        !strcasecmp(n, "dec") || strcasestr(n, "util") || !strcasecmp(n, "pt"))
        return "%";
    if (!strcasecmp(n, "mclk") || !strcasecmp(n, "pclk"))
        return "MHz";
    if (!strcasecmp(n, "rxpci") || !strcasecmp(n, "txpci"))
        return "MB/s";
    return "";
}

static int is_device_name(const char *n)
{
    return !strcasecmp(n, "gpu") || !strcasecmp(n, "idx") || !strcasecmp(n, "index") ||
           !strcasecmp(n, "device") || !strcasecmp(n, "dev") || !strcasecmp(n, "aiu") ||
           !strcasecmp(n, "id") || !strcasecmp(n, "device_id");
}

static int is_time_name(const char *n)
{
    return !strcasecmp(n, "timestamp") || !strcasecmp(n, "time") || !strcasecmp(n, "datetime") ||
           !strcasecmp(n, "ts") || !strcasecmp(n, "wallclock");
}

/* Split a CSV header cell "power.draw [W]" into name and unit. */
static void split_unit(const char *cell, size_t n, column *c)
{
    while (n && isspace((unsigned char)*cell))
        cell++, n--;
    while (n && isspace((unsigned char)cell[n - 1]))
        n--;
    if (n >= 2 && cell[0] == '"' && cell[n - 1] == '"')
        cell++, n -= 2;
    const char *o = NULL;
    for (size_t i = 0; i < n; i++)
        if (cell[i] == '[' || cell[i] == '(')
            o = cell + i;
    size_t nl = n;
    c->unit[0] = 0;
    if (o && (cell[n - 1] == ']' || cell[n - 1] == ')')) {
        size_t ul = (size_t)(cell + n - 1 - (o + 1));
        snprintf(c->unit, sizeof c->unit, "%.*s", (int)ul, o + 1);
        nl = (size_t)(o - cell);
        while (nl && cell[nl - 1] == ' ')
            nl--;
    }
    snprintf(c->name, sizeof c->name, "%.*s", (int)nl, cell);
}

/* A value cell: number, maybe followed by a unit; "-", "N/A", "[N/A]", "" = none. */
static int value_of(const char *p, size_t n, double *v)
{
    char buf[64];
    while (n && isspace((unsigned char)*p))
        p++, n--;
    if (!n || n >= sizeof buf)
        return 0;
    memcpy(buf, p, n);
    buf[n] = 0;
    char *e;
    *v = strtod(buf, &e);
    if (e == buf)
        return 0;
    while (*e == ' ')
        e++;
    return *e == 0 || isalpha((unsigned char)*e) || *e == '%';
}

typedef struct {
    td_traceset *set;
    const char *path;
    int32_t file;
    column col[MAXCOLS];
    int ncol;
    int64_t start_ns;
    int64_t *seen;      /* undated: rows seen per device (index device+1, up to 1024) */
} tctx;

static td_status finish_header(tctx *x)
{
    int metrics = 0;
    for (int i = 0; i < x->ncol; i++) {
        column *c = &x->col[i];
        if (c->role != COL_METRIC)
            continue;
        td_tmetric *m = TD_PUSH(x->set->tm, x->set->ntm, x->set->tm_cap);
        m->name = td_intern_cstr(x->set->strs, c->name);
        m->unit = td_intern_cstr(x->set->strs, c->unit);
        m->kind = (uint8_t)kind_of(c->name, c->unit);
        m->file = x->file;
        c->metric = (uint32_t)(x->set->ntm - 1);
        metrics++;
    }
    return metrics ? TD_OK : TD_E_FORMAT;
}

static void add_sample(tctx *x, int64_t t, uint32_t metric, int32_t dev, double v)
{
    td_tsample *s = TD_PUSH(x->set->ts, x->set->nts, x->set->ts_cap);
    s->t = t;
    s->v = v;
    s->metric = metric;
    s->device = dev;
}

/* One data row split into cells. */
static td_status row(tctx *x, const char **cell, const size_t *len, int ncell, int dated,
                     size_t line, td_err *e)
{
    int64_t t = 0, date = INT64_MIN, tod = INT64_MIN;
    int32_t dev = -1;
    if (ncell < x->ncol)
        return td_fail(e, TD_E_FORMAT, "%s: line %zu: %d values, the header has %d columns",
                       x->path, line, ncell, x->ncol);
    for (int i = 0; i < x->ncol; i++) {
        const column *c = &x->col[i];
        double v;
        if (c->role == COL_DEVICE && value_of(cell[i], len[i], &v) && v >= 0 && v < 1e6)
            dev = (int32_t)v;
        else if (c->role == COL_DATETIME) {
            if (!td_parse_wallclock(cell[i], len[i], &t))
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: '%.*s' is not a time (expected "
                               "e.g. 2025-11-22T08:26:41Z or seconds since 1970)", x->path, line,
                               (int)(len[i] > 40 ? 40 : len[i]), cell[i]);
        } else if (c->role == COL_DATE) {
            int y, m, d;
            const char *q = cell[i];
            if (len[i] != 8 || !digits(q, q + 8, 4, &y) || !digits(q + 4, q + 8, 2, &m) ||
                !digits(q + 6, q + 8, 2, &d) || m < 1 || m > 12 || d < 1 || d > 31 ||
                y < 1900 || y > 2261) /* ns since 1970 fit in 64 bits */
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: '%.*s' is not a YYYYMMDD date",
                               x->path, line, (int)(len[i] > 20 ? 20 : len[i]), cell[i]);
            date = days_from_civil(y, (unsigned)m, (unsigned)d) * 86400LL * 1000000000LL;
        } else if (c->role == COL_TIME) {
            if (clock_of(cell[i], cell[i] + len[i], &tod) != cell[i] + len[i])
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: '%.*s' is not a HH:MM:SS time",
                               x->path, line, (int)(len[i] > 20 ? 20 : len[i]), cell[i]);
        }
    }
    if (dated == 2) /* Date + Time columns */
        t = date + tod;
    if (!dated) {
        int k = dev + 1 < 1024 ? dev + 1 : 1023;
        int64_t first = x->start_ns != INT64_MIN ? x->start_ns : 0;
        t = first + x->seen[k]++ * 1000000000LL;
    }
    for (int i = 0; i < x->ncol; i++) {
        double v;
        if (x->col[i].role == COL_METRIC && value_of(cell[i], len[i], &v))
            add_sample(x, t, x->col[i].metric, dev, v);
    }
    return TD_OK;
}

static size_t split_ws(const char *p, size_t n, const char **cell, size_t *len)
{
    size_t k = 0, i = 0;
    while (i < n && k < MAXCOLS) {
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (i >= n)
            break;
        size_t s = i;
        while (i < n && p[i] != ' ' && p[i] != '\t')
            i++;
        cell[k] = p + s;
        len[k++] = i - s;
    }
    return k;
}

static size_t split_csv(const char *p, size_t n, const char **cell, size_t *len)
{
    size_t k = 0, s = 0;
    int q = 0;
    for (size_t i = 0; i <= n && k < MAXCOLS; i++) {
        if (i < n && p[i] == '"')
            q = !q;
        if (i == n || (p[i] == ',' && !q)) {
            cell[k] = p + s;
            len[k++] = i - s;
            s = i + 1;
        }
    }
    return k;
}

static td_status parse(tctx *x, const char *data, size_t n, td_err *e)
{
    const char *cell[MAXCOLS];
    size_t len[MAXCOLS];
    int header = 0, units = 0, dmon = -1, dated = 0;
    size_t line = 0;
    for (const char *p = data, *end = data + n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = (size_t)((nl ? nl : end) - p);
        const char *q = p;
        p = nl ? nl + 1 : end;
        line++;
        if (l && q[l - 1] == '\r')
            l--;
        size_t lead = 0;
        while (lead < l && (q[lead] == ' ' || q[lead] == '\t'))
            lead++;
        if (lead == l)
            continue;
        if (dmon < 0)
            dmon = q[lead] == '#';
        if (dmon && q[lead] == '#') {
            if (header && units)
                continue; /* repeated header */
            size_t k = split_ws(q + lead + 1, l - lead - 1, cell, len);
            if (!header) {
                if (!k)
                    continue;
                x->ncol = (int)k;
                for (size_t i = 0; i < k; i++) {
                    column *c = &x->col[i];
                    snprintf(c->name, sizeof c->name, "%.*s", (int)len[i], cell[i]);
                    snprintf(c->unit, sizeof c->unit, "%s", unit_of_name(c->name));
                    c->role = COL_METRIC;
                    if (!strcasecmp(c->name, "Date"))
                        c->role = COL_DATE, dated |= 1;
                    else if (!strcasecmp(c->name, "Time"))
                        c->role = COL_TIME, dated |= 2;
                    else if (is_device_name(c->name))
                        c->role = COL_DEVICE;
                }
                header = 1;
            } else {
                if ((int)k == x->ncol)
                    for (size_t i = 0; i < k; i++)
                        if (x->col[i].role == COL_METRIC)
                            snprintf(x->col[i].unit, sizeof x->col[i].unit, "%.*s", (int)len[i],
                                     cell[i]);
                units = 1;
            }
            continue;
        }
        if (!header && !dmon) { /* CSV header */
            size_t k = split_csv(q, l, cell, len);
            x->ncol = (int)k;
            for (size_t i = 0; i < k; i++) {
                column *c = &x->col[i];
                split_unit(cell[i], len[i], c);
                c->role = COL_METRIC;
                if (is_time_name(c->name))
                    c->role = COL_DATETIME, dated = 3;
                else if (is_device_name(c->name))
                    c->role = COL_DEVICE;
                else if (!strcasecmp(c->name, "name") || !strcasecmp(c->name, "pci.bus_id") ||
                         !strcasecmp(c->name, "uuid") || !strcasecmp(c->name, "serial"))
                    c->role = COL_SKIP;
            }
            if (!dated)
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: a CSV header without a timestamp "
                               "column (expected one named timestamp or time)", x->path, line);
            header = units = 1;
            if (finish_header(x) != TD_OK)
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: no value columns", x->path, line);
            continue;
        }
        if (!header)
            return td_fail(e, TD_E_FORMAT, "%s: line %zu: expected a '#' header line", x->path,
                           line);
        if (dmon && !units) /* a dmon file without a units line: units from the names */
            units = 1;
        if (dmon && header == 1) {
            if (dated == 1 || dated == 2)
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: a Date column needs a Time column "
                               "and the other way round", x->path, line);
            if (finish_header(x) != TD_OK)
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: no value columns", x->path, line);
            header = 2;
        }
        size_t k = dmon ? split_ws(q + lead, l - lead, cell, len) : split_csv(q, l, cell, len);
        td_status st = row(x, cell, len, (int)k, dmon ? (dated == 3 ? 2 : 0) : 1, line, e);
        if (st != TD_OK)
            return st;
    }
    if (!header)
        return td_fail(e, TD_E_FORMAT, "%s: no header line (not aiu-smi/nvidia-smi output or a "
                       "CSV with a timestamp column)", x->path);
    x->set->tf[x->file].dated = dmon ? dated == 3 : 1;
    x->set->tf[x->file].format = dmon ? "dmon" : "csv";
    return TD_OK;
}

td_status td_read_telemetry_file(td_traceset *set, const char *path, int64_t start_ns,
                                 td_err *e)
{
    char *data;
    size_t n;
    td_status st = td_read_small_file(path, &data, &n, e);
    if (st != TD_OK)
        return st;
    td_tfile *f = TD_PUSH(set->tf, set->ntf, set->tf_cap);
    memset(f, 0, sizeof *f);
    f->path = td_arena_strdup(set->arena, path);
    f->first = set->nts;
    tctx x;
    memset(&x, 0, sizeof x);
    x.set = set;
    x.path = path;
    x.file = (int32_t)(set->ntf - 1);
    x.start_ns = start_ns;
    x.seen = td_xcalloc(1024, sizeof *x.seen);
    st = parse(&x, data, n, e);
    free(x.seen);
    free(data);
    if (st == TD_OK && set->nts == set->tf[x.file].first)
        st = td_fail(e, TD_E_FORMAT, "%s: no samples", path);
    if (st != TD_OK)
        return st;
    set->tf[x.file].n = set->nts - set->tf[x.file].first;
    if (!set->tf[x.file].dated && start_ns != INT64_MIN)
        set->tf[x.file].dated = 1; /* --telemetry-start dated it */
    return TD_OK;
}

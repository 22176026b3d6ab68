/* read/chrome.c - streaming Chrome Trace Event reader (see read/chrome.h).
 *
 * The decoded stream flows through one reused buffer. The top level (array, or object
 * with traceEvents and a few useful keys) is a small resumable state machine; each
 * event object is parsed in one go from the buffer into a flat record of slices and
 * numbers, then committed to the model. When an event straddles the end of the buffer
 * the parse is abandoned (nothing was committed yet), the unread tail is moved to the
 * front, the buffer refilled and the event parsed again: a restart costs one event per
 * buffer, and no parser state has to survive a refill. The bytes after the data are a
 * run of '"' so scanning loops stop at the end without bounds checks; every place that
 * stops checks `p >= end` before trusting what it found.
 *
 * Numbers that matter (ts, dur) are parsed from their decimal text straight to integer
 * ns. Strings are interned through a cache keyed by their raw bytes, so escapes and
 * UTF-8 validation are only dealt with the first time a string is seen.
 *
 * What goes where: X, B/E (paired per track), i/I (TD_K_INSTANT) and b/e (paired by
 * cat, id, name: TD_K_ASYNC) become events; C args values become td_counter rows; s/t/f
 * become td_flow; M names and sort indexes go to tracks (process ones to every thread of
 * the process, at the end). Kept args: correlation -> td_event.corr; bytes, grid, block,
 * the NCCL ones and External id -> td_aux, External id only on device work (see
 * commit). Damage is counted and reported once per file as warnings: negative
 * durations (set to 0), events without ts or with out-of-range numbers (skipped),
 * unmatched E/e (ignored), unclosed B/b (closed at the last end seen), invalid UTF-8
 * (U+FFFD), a truncated tail (events read so far kept). */
#define _POSIX_C_SOURCE 200809L
#include "read/chrome_int.h"
#include "io/bound.h"
#include <stdlib.h>
#include <string.h>

#define BUF_INIT (1u << 20)
#define BUF_MAX TD_BOUND_EVENT   /* one event (or top-level value) must fit; a larger
                                    event is skipped, a larger other value an error */

const char *td_chrome_parse_scaled(const char *p, const char *end, int scale, int64_t *out)
{
    /* copy to a padded buffer so the scanner's end-of-number stop is guaranteed */
    char tmp[400];
    size_t n = (size_t)(end - p);
    if (n > sizeof tmp - 1)
        n = sizeof tmp - 1;
    memcpy(tmp, p, n);
    tmp[n] = 0;
    int st;
    int64_t v;
    const char *q = td_jscan_num_scaled(tmp, scale, &v, &st);
    if (!q || st)
        return NULL;
    *out = v;
    return p + (q - tmp);
}
static const char *parse_devices(cj *c, const char *p, const char *end)
{
    if (*p != '[')
        return td_jscan_skip(&c->js, p, end);
    p = td_jscan_ws(p + 1);
    if (p >= end)
        return td_jscan_need(&c->js);
    if (*p == ']')
        return p + 1;
    for (;;) {
        if (*p != '{') {
            p = td_jscan_skip(&c->js, p, end);
        } else {
            int64_t id = -1, mem = 0, sms = 0;
            td_jslice nm = {0};
            int hn = 0;
            TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
                int ok = 0;
                int64_t v = 0;
                if (TD_JSON_KEY_IS(k, "id")) {
                    p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
                    if (ok == 1) id = v;
                } else if (TD_JSON_KEY_IS(k, "name")) {
                    p = td_jscan_str(&c->js, p, end, &nm, &hn);
                } else if (TD_JSON_KEY_IS(k, "totalGlobalMem")) {
                    p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
                    if (ok == 1) mem = v;
                } else if (TD_JSON_KEY_IS(k, "numSms")) {
                    p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
                    if (ok == 1) sms = v;
                } else
                    p = td_jscan_skip(&c->js, p, end);
            });
            if (id >= 0 && id <= INT32_MAX) {
                td_device *d = td_trace_device(c->t, (int32_t)id);
                if (hn)
                    d->name = td_jscan_intern(&c->js, nm);
                d->total_mem = mem;
                d->num_sms = sms > INT32_MAX ? INT32_MAX : (int32_t)sms;
            }
        }
        if (!p)
            return NULL;
        p = td_jscan_ws(p);
        if (p >= end)
            return td_jscan_need(&c->js);
        if (*p == ',') {
            p = td_jscan_ws(p + 1);
            if (p >= end)
                return td_jscan_need(&c->js);
            continue;
        }
        if (*p == ']')
            return p + 1;
        return td_jscan_bad(&c->js, p, end, "expected ',' or ']'");
    }
}

static const char *parse_distinfo(cj *c, const char *p, const char *end)
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        int64_t v = 0;
        if (TD_JSON_KEY_IS(k, "rank")) {
            p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
            if (ok == 1 && v >= 0 && v <= INT32_MAX) c->t->rank = (int)v;
        } else if (TD_JSON_KEY_IS(k, "world_size")) {
            p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
            if (ok == 1 && v >= 0 && v <= INT32_MAX) c->t->world_size = (int)v;
        } else if (TD_JSON_KEY_IS(k, "backend")) {
            td_jslice s;
            p = td_jscan_str(&c->js, p, end, &s, &ok);
            if (p && ok) c->t->backend = td_jscan_intern(&c->js, s);
        } else
            p = td_jscan_skip(&c->js, p, end);
    });
    return p;
}

/* What the events read so far hold against what the input may hold (io/bound.h): a
 * small gzip of millions of identical events, or of distinct long names, is refused
 * before it fills memory. Returns 0 ok, -1 error. */
static int check_bound(cj *c)
{
    uint64_t held = td_traceset_bytes(c->set), base = td_in_held_base(c->in);
    held = held > base ? held - base : 0;
    uint64_t stored = td_in_stored(c->in);
    if (held <= td_bound_allow(stored))
        return 0;
    td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: the events read so far hold %llu MiB in "
            "memory, from the first %llu KiB of the input as stored (more than %d times "
            "that): refused as a decompression bomb", c->name, (unsigned long long)c->base,
            td_in_is_gzip(c->in) ? " (uncompressed)" : "", (unsigned long long)(held >> 20),
            (unsigned long long)(stored >> 10), TD_BOUND_RATIO);
    return -1;
}

/* Move the unread tail (from keep) to the front and read more. Returns 0 ok, -1 error,
 * 1 when the value at the front fills a buffer of BUF_MAX (nothing read, the caller
 * skips it or fails). */
static int refill(cj *c, size_t keep)
{
    size_t n = c->len - keep;
    if (keep == 0 && c->len >= c->cap) {
        if (c->cap >= BUF_MAX)
            return 1;
        c->cap *= 2;
        c->buf = td_xrealloc(c->buf, c->cap + TD_JSON_PAD);
    }
    if (check_bound(c) < 0)
        return -1;
    if (keep)
        memmove(c->buf, c->buf + keep, n);
    c->base += keep;
    c->len = n;
    while (!c->eof && c->len < c->cap) {
        ptrdiff_t r = td_in_read(c->in, c->buf + c->len, c->cap - c->len, c->e);
        if (r < 0)
            return -1;
        if (r == 0)
            c->eof = 1;
        c->len += (size_t)r;
    }
    memset(c->buf + c->len, '"', TD_JSON_PAD);
    return 0;
}

static td_status syntax_error(cj *c)
{
    return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: %s", c->name,
                   (unsigned long long)(c->base + (uint64_t)(c->js.fat - c->buf)),
                   td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->js.fwhat);
}

static td_status run(cj *c)
{
    int st = T_START;
    int form_obj = 0;
    if (refill(c, 0) < 0)
        return c->e->code;
    const char *p = c->buf, *mark = p;
    td_jrawev r;
    for (;;) {
        const char *end = c->buf + c->len;
        const char *q = NULL;
        c->js.fk = TD_JF_NONE;
        switch (st) {
        case T_START:
            mark = p;
            if (c->base == 0 && p == c->buf && c->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3;
            p = td_jscan_ws(p);
            if (p >= end)
                break;
            if (*p == '[') {
                p++;
                st = T_EV_FIRST;
                c->seen_events = 1;
                continue;
            }
            if (*p == '{') {
                p++;
                form_obj = 1;
                st = T_OBJ_FIRST;
                continue;
            }
            c->js.fk = TD_JF_ERR;
            c->js.fat = p;
            c->js.fwhat = "expected '{' or '[' (not a Chrome trace)";
            break;
        case T_OBJ_FIRST:
            mark = p = td_jscan_ws(p);
            if (p >= end)
                break;
            if (*p == '}') {
                p++;
                st = T_DONE;
                continue;
            }
            st = T_OBJ_KEY;
            continue;
        case T_OBJ_KEY: {
            mark = p = td_jscan_ws(p);
            td_jslice k;
            if (p >= end)
                break;
            if (*p != '"') {
                td_jscan_bad(&c->js, p, end, "expected a string key");
                break;
            }
            if (!(p = td_jscan_scan_str(&c->js, p, end, &k)))
                break;
            p = td_jscan_ws(p);
            if (*p != ':') {
                td_jscan_bad(&c->js, p, end, "expected ':'");
                break;
            }
            p = td_jscan_ws(p + 1);
            if (p >= end) {
                td_jscan_need(&c->js);
                break;
            }
            if (TD_JSON_KEY_IS(k, "traceEvents")) {
                if (*p == '[') {
                    p++;
                    st = T_EV_FIRST;
                    c->seen_events = 1;
                    continue;
                }
                q = td_jscan_skip(&c->js, p, end); /* null or odd: nothing to read */
            } else if (TD_JSON_KEY_IS(k, "deviceProperties")) {
                q = parse_devices(c, p, end);
            } else if (TD_JSON_KEY_IS(k, "distributedInfo")) {
                q = parse_distinfo(c, p, end);
            } else if (TD_JSON_KEY_IS(k, "baseTimeNanoseconds")) {
                int64_t v;
                int ok = 0;
                q = td_jscan_num(&c->js, p, end, 0, &v, &ok);
                if (q && ok == 1)
                    c->t->base_time_ns = v;
            } else {
                /* displayTimeUnit only changes how viewers show times (ts and dur stay
                 * microseconds); the rest is not needed: skip it, resumably, as it can be
                 * large (stackFrames, systemTraceEvents) */
                td_jscan_skip_init(&c->sk);
                st = T_SKIP;
                mark = p;
                continue;
            }
            if (!q)
                break;
            p = q;
            st = T_OBJ_AFTER;
            continue;
        }
        case T_SKIP:
            q = td_jscan_skip_run(&c->js, &c->sk, p, end);
            if (!q) {
                if (c->js.fk == TD_JF_NEED)
                    mark = c->js.resume;
                break;
            }
            p = q;
            st = T_OBJ_AFTER;
            continue;
        case T_EV_SKIP:
            q = td_jscan_skip_run(&c->js, &c->sk, p, end);
            if (!q) {
                if (c->js.fk == TD_JF_NEED)
                    mark = c->js.resume;
                break;
            }
            p = q;
            st = T_EV_AFTER;
            continue;
        case T_OBJ_AFTER:
            mark = p = td_jscan_ws(p);
            if (p >= end)
                break;
            if (*p == ',') {
                p++;
                st = T_OBJ_KEY;
                continue;
            }
            if (*p == '}') {
                p++;
                st = T_DONE;
                continue;
            }
            td_jscan_bad(&c->js, p, end, "expected ',' or '}'");
            break;
        case T_EV_FIRST:
        case T_EV_NEXT:
        case T_EV_AFTER:
            /* the hot loop */
            for (;;) {
                mark = p = td_jscan_ws(p);
                if (p >= end) {
                    td_jscan_need(&c->js);
                    break;
                }
                if (st == T_EV_AFTER) {
                    if (*p == ',') {
                        p++;
                        st = T_EV_NEXT;
                        continue;
                    }
                    if (*p != ']') {
                        td_jscan_bad(&c->js, p, end, "expected ',' or ']' after an event");
                        break;
                    }
                }
                if (*p == ']') { /* also tolerates a trailing comma */
                    p++;
                    st = form_obj ? T_OBJ_AFTER : T_DONE;
                    break;
                }
                if (*p != '{') {
                    td_jscan_bad(&c->js, p, end, "expected '{' (an event object)");
                    break;
                }
                q = td_chrome_parse_event(c, p, end, &r);
                if (!q)
                    break;
                td_chrome_commit(c, &r);
                c->t->nevents++;
                p = q;
                st = T_EV_AFTER;
            }
            if (c->js.fk == TD_JF_NONE)
                continue;
            break;
        case T_DONE:
            mark = p = td_jscan_ws(p);
            if (p >= end)
                break; /* need more, or clean end */
            td_warn(&c->set->warnings, "%s: byte %llu: data after the end of the JSON ignored",
                    c->name, (unsigned long long)(c->base + (uint64_t)(p - c->buf)));
            return TD_OK;
        }
        /* here: c->js.fk is TD_JF_NEED or TD_JF_ERR, or T_DONE/T_START at the end of the data */
        if (c->js.fk == TD_JF_ERR)
            return syntax_error(c);
        if (!c->eof) {
            size_t keep = (size_t)(mark - c->buf);
            int rf = refill(c, keep);
            if (rf < 0)
                return c->e->code;
            if (rf > 0) {
                if ((st != T_EV_FIRST && st != T_EV_NEXT) || *mark != '{')
                    return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: a single value larger "
                                   "than %zu MiB", c->name, (unsigned long long)c->base,
                                   td_in_is_gzip(c->in) ? " (uncompressed)" : "",
                                   BUF_MAX >> 20);
                /* an event larger than the buffer may grow to: skipped as it streams by */
                if (!c->w_big++)
                    c->w_big_at = c->base;
                td_jscan_skip_init(&c->sk);
                st = T_EV_SKIP;
            }
            p = c->buf;
            continue;
        }
        /* end of data */
        if (st == T_DONE && !c->seen_events) {
            c->no_events = 1;
            return td_fail(c->e, TD_E_FORMAT, "%s: a JSON object without \"traceEvents\" "
                           "(not a Chrome trace)", c->name);
        }
        if (st == T_DONE)
            return TD_OK;
        if (c->seen_events) {
            td_warn(&c->set->warnings, "%s: truncated at byte %llu%s; kept %zu events",
                    c->name, (unsigned long long)(c->base + c->len),
                    td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->t->nev);
            return TD_OK;
        }
        if (c->base + c->len == 0)
            return td_fail(c->e, TD_E_FORMAT, "%s: empty file", c->name);
        return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu: unexpected end of data%s", c->name,
                       (unsigned long long)(c->base + c->len),
                       form_obj ? " (no traceEvents read)" : "");
    }
}
td_status td_read_chrome_ex(td_traceset *set, td_trace *t, td_in *in, int *no_events,
                            td_err *e)
{
    cj *c = td_xcalloc(1, sizeof *c);
    c->set = set;
    c->t = t;
    c->in = in;
    c->name = td_in_name(in);
    c->e = e;
    c->cap = BUF_INIT;
    /* tests shrink the buffer to make every event straddle a refill */
    const char *tb = getenv("TD_READ_BUF");
    if (tb && atol(tb) >= 16 && (size_t)atol(tb) < BUF_MAX)
        c->cap = (size_t)atol(tb);
    c->buf = td_xmalloc(c->cap + TD_JSON_PAD);
    c->js.scarena = td_arena_new();
    c->js.strs = set->strs;
    c->max_end = INT64_MIN;
    c->cpu_functions = td_intern_cstr(set->strs, "CPU functions");
    t->format = TD_FMT_CHROME_JSON;
    td_status st = run(c);
    if (st == TD_OK && c->w_big)
        td_warn(&set->warnings, "%s: byte %llu%s: an event larger than %zu MiB skipped (%llu "
                "such events)", c->name, (unsigned long long)c->w_big_at,
                td_in_is_gzip(in) ? " (uncompressed)" : "", BUF_MAX >> 20,
                (unsigned long long)c->w_big);
    if (no_events)
        *no_events = c->no_events;
    if (st == TD_OK)
        td_chrome_finish(c);
    else
        for (size_t i = 0; i < c->nstk; i++)
            free(c->stk[i].v);
    free(c->stk);
    free(c->buf);
    free(c->tracks.e);
    free(c->pids.e);
    free(c->pi);
    free(c->amap.e);
    free(c->oa);
    free(c->bo);
    td_jscan_free(&c->js);
    free(c);
    return st;
}

td_status td_read_chrome(td_traceset *set, td_trace *t, td_in *in, td_err *e)
{
    return td_read_chrome_ex(set, t, in, NULL, e);
}

td_status td_read_chrome_mem(td_traceset *set, td_trace *t, const char *name,
                             const void *data, size_t n, td_err *e)
{
    td_in *in = td_in_open_mem(data, n, name);
    td_status st = td_read_chrome(set, t, in, e);
    td_in_close(in);
    return st;
}

/* Unit tests: Chrome JSON scanner (numbers to ns, escapes, UTF-8, phases, both top-level
 * forms, damage), event ordering and rank assignment. Expected values are written by
 * hand from the input text. */
#define _POSIX_C_SOURCE 200809L
#include "read/read.h"
#include "read/chrome.h"
#include "unit.h"
#include <stdlib.h>

static td_traceset *set;
static td_err err;
static int analysis_only; /* rd() reads as `report` does (set->analysis_only) */

/* Read JSON text as one trace; returns the trace or NULL (err filled). */
static td_trace *rd(const char *json)
{
    if (set)
        td_traceset_free(set);
    set = td_traceset_new();
    set->analysis_only = analysis_only;
    memset(&err, 0, sizeof err);
    td_trace *t = td_traceset_add(set, "t.json");
    t->rank = -1;
    if (td_read_chrome_mem(set, t, "t.json", json, strlen(json), &err) != TD_OK)
        return NULL;
    return t;
}

static const char *S(td_str s) { return td_strget(set->strs, s); }

static int has_warning(const char *needle)
{
    for (size_t i = 0; i < set->warnings.n; i++)
        if (strstr(set->warnings.msg[i], needle))
            return 1;
    return 0;
}

static td_event *find(td_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nev; i++)
        if (strcmp(S(t->ev[i].name), name) == 0)
            return &t->ev[i];
    return NULL;
}

static int64_t scaled(const char *s, int scale, int *ok)
{
    int64_t v = -42;
    const char *q = td_chrome_parse_scaled(s, s + strlen(s), scale, &v);
    *ok = q != NULL && q == s + strlen(s);
    return v;
}

static void numbers(void)
{
    int ok;
    CHECK_EQ_INT(scaled("1712195495519689.047", 3, &ok), 1712195495519689047LL);
    CHECK(ok);
    CHECK_EQ_INT(scaled("1682725898236567", 3, &ok), 1682725898236567000LL);
    CHECK(ok);
    CHECK_EQ_INT(scaled("1.5e3", 3, &ok), 1500000);
    CHECK_EQ_INT(scaled("1.7e15", 3, &ok), 1700000000000000000LL);
    CHECK_EQ_INT(scaled("2E+2", 3, &ok), 200000);
    CHECK_EQ_INT(scaled("2500e-3", 3, &ok), 2500);
    CHECK_EQ_INT(scaled("-2.5", 3, &ok), -2500);
    CHECK_EQ_INT(scaled("68.0", 3, &ok), 68000);
    CHECK_EQ_INT(scaled("63.813", 3, &ok), 63813);
    CHECK_EQ_INT(scaled("0.0004", 3, &ok), 0);      /* 0.4 ns */
    CHECK_EQ_INT(scaled("0.0005", 3, &ok), 1);      /* half rounds away from zero */
    CHECK_EQ_INT(scaled("-0.0005", 3, &ok), -1);
    CHECK_EQ_INT(scaled("0.0015", 3, &ok), 2);
    CHECK_EQ_INT(scaled("1e-30", 3, &ok), 0);
    CHECK_EQ_INT(scaled("0", 0, &ok), 0);
    CHECK_EQ_INT(scaled("9223372036854775807", 0, &ok), INT64_MAX);
    CHECK(ok);
    CHECK_EQ_INT(scaled("-9223372036854775808", 0, &ok), INT64_MIN);
    CHECK(ok);
    scaled("9223372036854775808", 0, &ok);
    CHECK(!ok);
    scaled("123456789012345678901234567890", 0, &ok); /* "Comms Id" sized */
    CHECK(!ok);
    scaled("1e400", 3, &ok);
    CHECK(!ok);
    /* more digits than fit 64 bits: the excess fraction digits are dropped */
    CHECK_EQ_INT(scaled("1.00000000000000000000000001", 3, &ok), 1000);
    CHECK(ok);
    scaled("-", 3, &ok);
    CHECK(!ok);
    scaled("1.", 3, &ok);
    CHECK(!ok);
    scaled("1e", 3, &ok);
    CHECK(!ok);
    scaled("abc", 3, &ok);
    CHECK(!ok);
}

static void strings(void)
{
    /* escapes, surrogate pair (U+1F600), lone surrogate, \u0000 and raw invalid UTF-8 */
    td_trace *t = rd("[{\"ph\":\"X\",\"name\":\"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00\","
                     "\"ts\":1,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"lone\\ud800x\",\"ts\":2,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"nul\\u0000\",\"ts\":3,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"bad\xff\xfe" "ok\xc3\xa9\",\"ts\":4,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"ctl\x01\t\",\"ts\":5,\"dur\":1}]");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(t->nev, 5);
    CHECK_EQ_STR(S(t->ev[0].name), "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80");
    CHECK_EQ_STR(S(t->ev[1].name), "lone\xef\xbf\xbdx");
    CHECK_EQ_STR(S(t->ev[2].name), "nul\xef\xbf\xbd");
    CHECK_EQ_STR(S(t->ev[3].name), "bad\xef\xbf\xbd\xef\xbf\xbdok\xc3\xa9");
    CHECK_EQ_STR(S(t->ev[4].name), "ctl\x01\t");
    CHECK(has_warning("invalid UTF-8"));
    /* the same raw string twice interns once */
    t = rd("[{\"ph\":\"X\",\"name\":\"x\\u0041\",\"ts\":1},{\"ph\":\"X\",\"name\":\"xA\",\"ts\":2}]");
    CHECK(t && t->nev == 2 && t->ev[0].name == t->ev[1].name);
}

static void forms(void)
{
    /* object form: displayTimeUnit "ns" does not rescale ts (still microseconds) */
    td_trace *t = rd("\xEF\xBB\xBF {\"schemaVersion\":1, \"otherData\":{\"a\":[1,{\"b\":[[],{}]}],"
                     "\"s\":\"}]\\\"\"}, \"deviceProperties\":[{\"id\":0,\"name\":\"GPU A\","
                     "\"totalGlobalMem\":85899345920,\"numSms\":108}],"
                     "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8,"
                     "\"pg_config\":[{\"ranks\":[0,1]}]},"
                     "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                     "\"tid\":7,\"ts\":10.5,\"dur\":2,\"args\":{\"device\":1,\"stream\":7,"
                     "\"correlation\":99,\"grid\":[2,3,4],\"block\":[128,1,1]}}],"
                     "\"displayTimeUnit\":\"ns\",\"baseTimeNanoseconds\":1700000000000000000}");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(t->nev, 1);
    CHECK_EQ_INT(t->ev[0].ts, 10500);
    CHECK_EQ_INT(t->ev[0].dur, 2000);
    CHECK_EQ_INT(t->ev[0].kind, TD_K_KERNEL);
    CHECK_EQ_INT(t->ev[0].corr, 99);
    CHECK_EQ_INT(t->rank, 3);
    CHECK_EQ_INT(t->world_size, 8);
    CHECK_EQ_STR(S(t->backend), "nccl");
    CHECK_EQ_INT(t->base_time_ns, 1700000000000000000LL);
    CHECK_EQ_INT(t->ndevices, 1);
    CHECK_EQ_STR(S(t->devices[0].name), "GPU A");
    CHECK_EQ_INT(t->devices[0].num_sms, 108);
    CHECK_EQ_INT(t->devices[0].total_mem, 85899345920LL);
    CHECK_EQ_INT(t->tracks[t->ev[0].track].device, 1);
    CHECK_EQ_INT(t->tracks[t->ev[0].track].stream, 7);
    CHECK(t->ev[0].aux != 0);
    if (t->ev[0].aux) {
        td_aux *a = &t->aux[t->ev[0].aux];
        const td_dims *dm = td_trace_dims(t, t->ev[0].aux);
        CHECK(dm != NULL);
        CHECK_EQ_INT(dm ? dm->grid[0] : 0, 2);
        CHECK_EQ_INT(dm ? dm->grid[2] : 0, 4);
        CHECK_EQ_INT(dm ? dm->block[0] : 0, 128);
        CHECK_EQ_INT(a->bytes, -1);
    }
    /* array form, no trailing ']' (allowed by the spec: a truncation warning) */
    t = rd("[{\"name\":\"aten::mm\",\"ph\":\"X\",\"ts\":172,\"dur\":20,\"tid\":1,"
           "\"pid\":\"CPU functions\",\"args\":{}},\n");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(t->nev, 1);
    CHECK_EQ_INT(t->ev[0].kind, TD_K_CPU_OP); /* legacy export */
    CHECK_EQ_STR(S(t->tracks[t->ev[0].track].pid_str), "CPU functions");
    CHECK(has_warning("truncated at byte"));
    /* an empty trace is fine; an object without traceEvents is not a trace */
    t = rd("{\"traceEvents\":[]}");
    CHECK(t && t->nev == 0 && t->nevents == 0);
    t = rd("[]");
    CHECK(t && t->nev == 0);
    CHECK(rd("{\"a\":1}") == NULL);
    CHECK(strstr(err.msg, "traceEvents") != NULL);
}

static void phases(void)
{
    td_trace *t = rd(
        "{\"traceEvents\":["
        "{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":100},"
        "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":110},"
        "{\"ph\":\"B\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":105},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":120},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":150},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":160},"          /* unmatched E */
        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":130,\"s\":\"t\"},"
        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":140,\"args\":{\"used\":12.5,\"free\":3,\"x\":\"s\"}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"worker\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":2,\"args\":{\"sort_index\":5}},"
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":111},"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":112,\"bp\":\"e\"},"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":113,\"bp\":\"e\"},"
        "{\"ph\":\"b\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x10\",\"pid\":1,\"tid\":1,\"ts\":101},"
        "{\"ph\":\"n\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x10\",\"pid\":1,\"tid\":1,\"ts\":102},"
        "{\"ph\":\"e\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x10\",\"pid\":1,\"tid\":1,\"ts\":109},"
        "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":-5},"
        "{\"ph\":\"X\",\"name\":\"nots\",\"pid\":1,\"tid\":3,\"dur\":5},"
        "{\"ph\":\"Z\",\"name\":\"unknown phase\",\"pid\":1,\"tid\":3,\"ts\":1},"
        "{\"ph\":\"X\",\"name\":\"str\",\"pid\":\"Spans\",\"tid\":\"stream 7\",\"ts\":1,\"dur\":1,"
        "\"args\":{\"Comms Id\":123456789012345678901234567890,\"External id\":5}}"
        "]}");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(t->nevents, 21);
    td_event *o = find(t, "outer"), *in = find(t, "inner"), *ot = find(t, "other");
    CHECK(o && in && ot);
    if (o && in && ot) {
        CHECK_EQ_INT(o->dur, 50000);
        CHECK_EQ_INT(in->dur, 10000);
        CHECK_EQ_INT(o->ph, 'B');
        /* never closed: ends at the trace end (last end seen: outer at 150 us) */
        CHECK_EQ_INT(ot->dur, 45000);
        CHECK_EQ_STR(S(t->tracks[ot->track].thread_name), "worker");
        CHECK_EQ_STR(S(t->tracks[ot->track].process_name), "python");
        CHECK_EQ_STR(S(t->tracks[o->track].process_name), "python");
        CHECK_EQ_INT(t->tracks[ot->track].sort_index, 5);
    }
    CHECK(has_warning("without a matching \"B\""));
    CHECK(has_warning("1 \"B\" events without an \"E\""));
    td_event *m = find(t, "mark");
    CHECK(m && m->kind == TD_K_INSTANT && m->dur == 0 && m->ts == 130000);
    CHECK_EQ_INT(t->ncounters, 2);
    if (t->ncounters == 2) {
        CHECK_EQ_STR(S(t->counters[0].series), "used");
        CHECK(t->counters[0].value == 12.5);
        CHECK_EQ_INT(t->counters[1].ts, 140000);
        CHECK_EQ_STR(S(t->counters[1].name), "mem");
    }
    CHECK_EQ_INT(t->nflows, 3);
    if (t->nflows == 3) {
        CHECK_EQ_INT(t->flows[0].ph, 's');
        CHECK_EQ_INT(t->flows[1].id, 7);
        CHECK_EQ_INT(t->flows[1].bind_next, 1);
        CHECK_EQ_STR(S(t->flows[2].cat), "ac2g");
    }
    td_event *a = find(t, "req");
    CHECK(a && a->kind == TD_K_ASYNC && a->dur == 8000);
    td_event *n = find(t, "neg");
    CHECK(n && n->dur == 0);
    CHECK(has_warning("negative duration"));
    CHECK(find(t, "nots") == NULL);
    CHECK(has_warning("without \"ts\""));
    CHECK(find(t, "unknown phase") == NULL);
    td_event *s = find(t, "str");
    CHECK(s != NULL);
    if (s) {
        td_track *k = &t->tracks[s->track];
        CHECK_EQ_STR(S(k->pid_str), "Spans");
        CHECK_EQ_STR(S(k->tid_str), "stream 7");
        CHECK(k->pid == (int64_t)(td_hash64("Spans", 5) >> 1));
        CHECK(s->aux == 0); /* External id alone on a host event: not kept */
    }
}

/* The analysis reads no flow events, so `report` keeps none (set->analysis_only): the events,
 * tracks (a flow's own included) and warnings are the same as when they are kept. */
static void flows_dropped(void)
{
    const char *json = "[{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},"
        "{\"ph\":\"s\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":1},"
        "{\"ph\":\"f\",\"id\":7,\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"f\",\"pid\":0,\"tid\":9,\"ts\":4},"
        "{\"ph\":\"t\",\"id\":8,\"name\":\"f\",\"pid\":1,\"tid\":1}]";
    for (int drop = 0; drop < 2; drop++) {
        analysis_only = drop;
        td_trace *t = rd(json);
        analysis_only = 0;
        CHECK(t != NULL);
        if (!t)
            return;
        CHECK_EQ_INT(t->nflows, drop ? 0 : 2);
        CHECK_EQ_INT(t->nev, 1);
        CHECK_EQ_INT(t->nevents, 4);
        CHECK_EQ_INT(t->ntracks, 2); /* (1, 1) and the "f" flow's (0, 9) */
        CHECK(has_warning("1 events without \"ts\" skipped"));
    }
}

static void nccl_args(void)
{
    td_trace *t = rd("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\","
                     "\"pid\":0,\"tid\":20,\"ts\":1,\"dur\":3,\"args\":{\"External id\":12,"
                     "\"Collective name\":\"allreduce\",\"Group size\":8,\"dtype\":\"Float\","
                     "\"In msg nelems\":1048576,\"Out msg nelems\":1048576,"
                     "\"Process Group Ranks\":\"[0, 1]\"}},"
                     "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,"
                     "\"tid\":7,\"ts\":5,\"dur\":1,\"args\":{\"bytes\":4096,\"correlation\":3}},"
                     "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":9,"
                     "\"ts\":0,\"dur\":9,\"args\":{\"Input Dims\":[[2,3],[3,4]]}}]");
    CHECK(t != NULL);
    if (!t)
        return;
    td_event *k = find(t, "ncclKernel_AllReduce");
    CHECK(k && k->aux);
    if (k && k->aux) {
        td_aux *a = &t->aux[k->aux];
        const td_nccl *n = td_aux_nccl(t, k->aux);
        CHECK(n != NULL);
        if (n) {
            CHECK_EQ_STR(S(n->coll), "allreduce");
            CHECK_EQ_STR(S(n->dtype), "Float");
            CHECK_EQ_INT(n->group_size, 8);
            CHECK_EQ_INT(n->in_nelems, 1048576);
            CHECK_EQ_INT(n->out_nelems, 1048576);
        }
        CHECK_EQ_INT(a->ext_id, 12);
        CHECK_EQ_INT(t->tracks[k->track].device, 0); /* no "device" arg: the pid */
        CHECK_EQ_INT(t->tracks[k->track].stream, 20);
    }
    td_event *m = find(t, "Memcpy HtoD");
    CHECK(m && m->kind == TD_K_MEMCPY && m->corr == 3 && m->aux && t->aux[m->aux].bytes == 4096);
    td_event *op = find(t, "aten::mm");
    CHECK(op && op->aux == 0); /* no kept args: no aux record */
}

static void errors(void)
{
    CHECK(rd("[{\"ph\":\"X\",\"ts\":1} {\"ph\":\"X\"}]") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 19: expected ',' or ']' after an event");
    CHECK(rd("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":[1,2}}]") == NULL);
    CHECK_EQ_STR(err.msg, "t.json: byte 34: expected ',' or ']'");
    CHECK(rd("[{\"ph\":\"X\",\"ts\":@}]") == NULL);
    CHECK(strstr(err.msg, "byte 16: expected") != NULL);
    CHECK(rd("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":tru}}]") == NULL);
    CHECK(strstr(err.msg, "byte 30: expected a JSON value") != NULL);
    CHECK(rd("") == NULL);
    CHECK(strstr(err.msg, "empty") != NULL);
    CHECK(rd("{\"traceEv") == NULL);
    CHECK(strstr(err.msg, "unexpected end of data") != NULL);
    CHECK(rd("hello") == NULL);
    /* deep nesting in args: an error, not a stack overflow */
    size_t depth = 5000;
    char *deep = malloc(depth * 2 + 100);
    size_t n = (size_t)sprintf(deep, "[{\"ph\":\"X\",\"ts\":1,\"args\":");
    for (size_t i = 0; i < depth; i++)
        deep[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[n++] = ']';
    strcpy(deep + n, "}]");
    CHECK(rd(deep) == NULL);
    CHECK(strstr(err.msg, "nesting deeper than 1024") != NULL);
    free(deep);
    /* a truncated event is dropped, the ones before it kept */
    td_trace *t = rd("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"du");
    CHECK(t && t->nev == 1);
    CHECK(has_warning("t.json: truncated at byte 84; kept 1 events"));
}

static void ordering(void)
{
    td_trace *t = rd("[{\"ph\":\"X\",\"name\":\"c1\",\"ts\":5,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"p\",\"ts\":5,\"dur\":10},"
                     "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"c2\",\"ts\":5,\"dur\":1},"
                     "{\"ph\":\"X\",\"name\":\"z\",\"ts\":9,\"dur\":0},"
                     "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":0}]");
    CHECK(t != NULL);
    if (!t)
        return;
    td_read_finish(set);
    const char *want[] = {"a", "b", "p", "c1", "c2", "z"};
    for (int i = 0; i < 6; i++)
        CHECK_EQ_STR(S(t->ev[i].name), want[i]);
    CHECK_EQ_INT(t->rank, 0); /* no distributedInfo: file order */

    /* a larger shuffled sequence against an insertion-sort reference */
    td_event *v = malloc(3000 * sizeof *v), *ref = malloc(3000 * sizeof *ref);
    set->tr[0]->ev = realloc(set->tr[0]->ev, 3000 * sizeof *v);
    t = set->tr[0];
    uint32_t x = 12345;
    for (int i = 0; i < 3000; i++) {
        x = x * 1103515245u + 12345u;
        memset(&v[i], 0, sizeof v[i]);
        v[i].ts = (x >> 8) % 50;
        v[i].dur = (x >> 20) % 4;
        v[i].corr = i; /* original position */
    }
    memcpy(ref, v, 3000 * sizeof *v);
    for (int i = 1; i < 3000; i++) {
        td_event k = ref[i];
        int j = i - 1;
        while (j >= 0 && (ref[j].ts > k.ts || (ref[j].ts == k.ts && ref[j].dur < k.dur))) {
            ref[j + 1] = ref[j];
            j--;
        }
        ref[j + 1] = k;
    }
    for (int tmpcap = 0; tmpcap < 3; tmpcap++) {
        /* default buffer, then buffers of 7 and 1 events (merges split by rotation) */
        if (tmpcap)
            setenv("TD_SORT_TMP", tmpcap == 1 ? "7" : "1", 1);
        memcpy(t->ev, v, 3000 * sizeof *v);
        t->nev = 3000;
        t->ev_cap = 3000;
        td_read_finish(set);
        int same = 1;
        for (int i = 0; i < 3000; i++)
            if (t->ev[i].corr != ref[i].corr)
                same = 0;
        CHECK(same);
    }
    unsetenv("TD_SORT_TMP");
    free(v);
    free(ref);

    /* above 1M events the halves are sorted on two threads and merged: same contract */
    size_t big = (1u << 20) + 12345;
    t->ev = realloc(t->ev, big * sizeof *t->ev);
    t->nev = t->ev_cap = big;
    for (size_t i = 0; i < big; i++) {
        x = x * 1103515245u + 12345u;
        memset(&t->ev[i], 0, sizeof t->ev[i]);
        t->ev[i].ts = (x >> 8) % 100000;
        t->ev[i].dur = (x >> 24) % 3;
        t->ev[i].corr = (int64_t)i;
    }
    td_read_finish(set);
    size_t wrong = 0;
    for (size_t i = 1; i < big; i++) {
        const td_event *a = &t->ev[i - 1], *b = &t->ev[i];
        if (a->ts > b->ts || (a->ts == b->ts && (a->dur < b->dur ||
                                                 (a->dur == b->dur && a->corr > b->corr))))
            wrong++;
    }
    CHECK_EQ_INT(wrong, 0);
}

static void ranks(void)
{
    td_traceset_free(set);
    set = td_traceset_new();
    td_trace *a = td_traceset_add(set, "a"), *b = td_traceset_add(set, "b");
    a->rank = 5;
    b->rank = 2;
    td_read_finish(set);
    CHECK_EQ_INT(a->rank, 5);
    CHECK_EQ_INT(b->rank, 2);
    a->rank = 2;
    td_read_finish(set);
    CHECK_EQ_INT(a->rank, 0);
    CHECK_EQ_INT(b->rank, 1);
}

/* Mutated inputs (fixed seed): every read ends in TD_OK or TD_E_FORMAT with a message
 * naming the file, never a crash (the ASan build checks memory), with a tiny buffer so
 * refills land everywhere. */
static void fuzz(void)
{
    const char *base =
        "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"G\"}],"
        "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u00e9\","
        "\"pid\":0,\"tid\":7,\"ts\":1.5,\"dur\":2,\"args\":{\"grid\":[1,2,3],"
        "\"correlation\":4,\"x\":[{\"a\":null},true,false,-1e3]}},{\"ph\":\"B\","
        "\"name\":\"b\",\"pid\":\"p\",\"tid\":1,\"ts\":3},{\"ph\":\"E\",\"pid\":\"p\","
        "\"tid\":1,\"ts\":4},{\"ph\":\"C\",\"name\":\"c\",\"ts\":5,\"args\":{\"v\":1}},"
        "{\"ph\":\"s\",\"id\":\"0x1\",\"ts\":6},{\"ph\":\"M\",\"name\":\"thread_name\","
        "\"args\":{\"name\":\"t\"}}],\"distributedInfo\":{\"rank\":1}}";
    const char alphabet[] = "{}[]\",:\\0123456789.eE-+tfnu \x80\xff";
    size_t n = strlen(base);
    char *buf = malloc(n + 16);
    uint32_t x = 99;
    int bad = 0;
    setenv("TD_READ_BUF", "16", 1);
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, base, n + 1);
        size_t len = n;
        int muts = 1 + it % 4;
        for (int m = 0; m < muts; m++) {
            x = x * 1103515245u + 12345u;
            size_t at = (x >> 8) % len;
            x = x * 1103515245u + 12345u;
            char ch = alphabet[(x >> 8) % (sizeof alphabet - 1)];
            switch ((x >> 20) % 3) {
            case 0: buf[at] = ch; break;
            case 1: memmove(buf + at, buf + at + 1, len - at); len--; break;
            default: memmove(buf + at + 1, buf + at, len - at + 1); buf[at] = ch; len++; break;
            }
        }
        if (it % 7 == 0)
            len = (x >> 4) % len; /* truncated too */
        td_traceset *s = td_traceset_new();
        td_trace *t = td_traceset_add(s, "f.json");
        td_err e = {0};
        td_status st = td_read_chrome_mem(s, t, "f.json", buf, len, &e);
        if (st != TD_OK && (st != TD_E_FORMAT || strncmp(e.msg, "f.json: ", 8) != 0))
            bad++;
        if (st == TD_OK)
            td_read_finish(s);
        td_traceset_free(s);
    }
    unsetenv("TD_READ_BUF");
    CHECK_EQ_INT(bad, 0);
    free(buf);
}

int main(void)
{
    fuzz();
    numbers();
    strings();
    forms();
    phases();
    flows_dropped();
    nccl_args();
    errors();
    ordering();
    ranks();
    td_traceset_free(set);
    return UNIT_DONE();
}

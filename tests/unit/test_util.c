/* Unit tests: arena, interning, summary tables and JSON, templates. */
#define _POSIX_C_SOURCE 200809L
#include "summary/summary.h"
#include "summary/template.h"
#include "base/util.h"
#include "base/fmt.h"
#include "unit.h"
#include "support.h"
#include "base/sha256_ni.h"
#include <openssl/evp.h>
#include <stdlib.h>


/* td_fmt_fixed and td_fmt_int against snprintf (the C library's printf is the reference):
 * exact ties (k/8, k/2^20), values near them (k/1000 and k/10000, which are not exact in
 * binary), percentages as the SVG writes them, large, tiny and negative values, -0. */
static void fmt_against_printf(void)
{
    uint64_t x = 88172645463325252ull;
    int bad = 0;
    for (int i = 0; i < 400000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        switch (i % 8) {
        case 0: v = (double)(int64_t)(x % 2000001 - 1000000) / 8; break;
        case 1: v = (double)(x % 100000001) / 1048576; break;
        case 2: v = (double)(x % 1000001) / 1000; break;
        case 3: v = (double)(x % 1000001) / 10000; break;
        case 4: v = 100.0 * (double)(x % 1000003) / 1000003.0; break;
        case 5: v = (double)(x >> 11) * 0x1p-53 * 1e12; break;
        case 6: v = -(double)(x >> 11) * 0x1p-53; break;
        default: v = (double)(int64_t)x / 3.0; break;
        }
        for (int d = 0; d <= 6; d++) {
            char want[512], got[512];
            snprintf(want, sizeof want, "%.*f", d, v);
            td_fmt_fixed(got, sizeof got, v, d);
            if (strcmp(want, got) != 0 && bad++ < 5)
                fprintf(stderr, "td_fmt_fixed(%.17g, %d): %s, printf %s\n", v, d, got, want);
        }
        char wi[32], gi[32];
        snprintf(wi, sizeof wi, "%lld", (long long)x);
        td_fmt_int(gi, sizeof gi, (int64_t)x);
        if (strcmp(wi, gi) != 0 && bad++ < 5)
            fprintf(stderr, "td_fmt_int: %s, printf %s\n", gi, wi);
    }
    char t[32];
    td_fmt_fixed(t, sizeof t, -0.0, 2);
    CHECK_EQ_STR(t, "-0.00");
    td_fmt_fixed(t, sizeof t, 0.125, 2); /* a tie, to even */
    CHECK_EQ_STR(t, "0.12");
    td_fmt_fixed(t, sizeof t, 0.375, 2);
    CHECK_EQ_STR(t, "0.38");
    td_fmt_int(t, sizeof t, INT64_MIN);
    CHECK_EQ_STR(t, "-9223372036854775808");
    CHECK_EQ_INT(bad, 0);
}

/* SHA-256 (base/hash.c: on the SHA extensions where the CPU has them, else libcrypto):
 * FIPS 180-2's examples, then every length 0-300, 1,000 bytes in pieces of 1-64 and 1 MB
 * in pieces of 97-12,610 bytes against libcrypto called here directly */
static void ref_sha(const uint8_t *p, size_t n, char hex[65])
{
    unsigned char d[32];
    unsigned int k = 0;
    EVP_Digest(p, n, d, &k, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}
static void ours(const uint8_t *p, size_t n, size_t piece, char hex[65])
{
    td_sha256 *s = td_sha256_new();
    for (size_t i = 0; i < n; i += piece)
        td_sha256_update(s, p + i, n - i < piece ? n - i : piece);
    td_sha256_final(s, hex);
}
static void sha256_checks(void)
{
    char h[65], r[65];
    ours((const uint8_t *)"abc", 3, 3, h);
    CHECK_EQ_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    ours((const uint8_t *)two, strlen(two), 7, h);
    CHECK_EQ_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    ours((const uint8_t *)"", 0, 1, h);
    CHECK_EQ_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    size_t big = 1 << 20;
    uint8_t *b = malloc(big);
    uint32_t x = 12345;
    for (size_t i = 0; i < big; i++)
        b[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
    int bad = 0;
    for (size_t n = 0; n <= 300; n++) {
        ours(b, n, n ? n : 1, h);
        ref_sha(b, n, r);
        bad += strcmp(h, r) != 0;
    }
    for (size_t piece = 1; piece <= 64; piece++) {
        ours(b, 1000, piece, h);
        ref_sha(b, 1000, r);
        bad += strcmp(h, r) != 0;
    }
    for (size_t piece = 1; piece <= 130; piece++) {
        ours(b, big, piece * 97, h);
        ref_sha(b, big, r);
        bad += strcmp(h, r) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    const char *force = getenv("TD_SHA256");
    printf("sha256 through %s\n", force && !strcmp(force, "libcrypto") ? "libcrypto (TD_SHA256)"
                                   : td_sha256_ni_available() ? "the SHA extensions" : "libcrypto");
    free(b);
}

int main(void)
{
    sha256_checks();
    fmt_against_printf();
    td_strtab *t = td_strtab_new();
    td_str a = td_intern_cstr(t, "aten::mm"), b = td_intern_cstr(t, "aten::add");
    CHECK(a != b);
    CHECK_EQ_INT(td_intern(t, "aten::mm!", 8), a);
    CHECK_EQ_STR(td_strget(t, b), "aten::add");
    for (int i = 0; i < 5000; i++) {
        char k[32];
        snprintf(k, sizeof k, "k%d", i);
        td_intern_cstr(t, k);
    }
    CHECK_EQ_INT(td_intern_cstr(t, "k4999"), td_intern_cstr(t, "k4999"));
    CHECK_EQ_INT(td_strtab_count(t), 5003);
    td_strtab_free(t);

    /* varints: 150 = 0x96 0x01 (the protobuf documentation's example); truncated and
     * over-long ones are flagged */
    const uint8_t v1[] = {0x96, 0x01, 0x05}, v2[] = {0x96};
    const uint8_t v3[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    const uint8_t *vp = v1;
    int bad = 0;
    CHECK_EQ_INT(td_varint(&vp, v1 + 3, &bad), 150);
    CHECK_EQ_INT(td_varint(&vp, v1 + 3, &bad), 5);
    CHECK(bad == 0 && vp == v1 + 3);
    vp = v2;
    td_varint(&vp, v2 + 1, &bad);
    CHECK(bad == 1);
    bad = 0;
    vp = v3;
    td_varint(&vp, v3 + sizeof v3, &bad);
    CHECK(bad == 1);

    char buf[64];
    td_fmt_ns(buf, sizeof buf, 127212000);
    CHECK_EQ_STR(buf, "127.212 ms");
    td_fmt_ns(buf, sizeof buf, 999);
    CHECK_EQ_STR(buf, "999 ns");

    /* summary: dotted keys nest, insertion order, hostile strings escaped */
    td_summary *s = td_summary_new();
    td_sum_set_int(s, "compile.total_ns", "Compile", TD_T_NS, 5);
    td_table *ph = td_sum_table(s, "compile.phases", "Phases");
    td_table_cols(ph, "name:text:Name", "non_child_ns:ns:Non-child", "share:share:Share", NULL);
    size_t r = td_table_add_row(ph);
    td_row_str(s, ph, r, "name", "a\"<b>&\n=cmd|");
    td_row_int(s, ph, r, "non_child_ns", 3);
    td_row_f64(s, ph, r, "share", 0.5);
    td_sum_set_int(s, "runtime.wall_ns", "Wall", TD_T_NS, 7);
    char *j = json_of(s);
    const char *want =
        "{\n  \"schema\": \"tracedoc.summary/1\",\n  \"compile\": {\n    \"total_ns\": 5,\n"
        "    \"phases\": [\n      {\"name\": \"a\\\"\\u003cb\\u003e\\u0026\\n=cmd|\", "
        "\"non_child_ns\": 3, \"share\": 0.5}\n    ]\n  },\n  \"runtime\": {\n"
        "    \"wall_ns\": 7\n  },\n  \"findings\": [],\n  \"warnings\": [],\n"
        /* labels: titles and types by key, table columns as their specs */
        "  \"labels\": {\n    \"scalars\": {\n"
        "      \"compile.total_ns\": \"ns:Compile\",\n"
        "      \"runtime.wall_ns\": \"ns:Wall\"\n    },\n"
        "    \"tables\": {\n      \"compile.phases\": {\"title\": \"Phases\", \"columns\": "
        "[\"name:text:Name\", \"non_child_ns:ns:Non-child\", \"share:share:Share\"]}\n"
        "    },\n    \"flames\": {}\n  }\n}\n";
    CHECK_EQ_STR(j, want);
    free(j);

    /* stable sort with name tie-break */
    td_table *k = td_sum_table(s, "kernels", "Kernels");
    td_table_cols(k, "name:text:Name", "total_ns:ns:Total", NULL);
    const char *names[] = {"b", "a", "c"};
    int64_t vals[] = {5, 5, 9};
    for (int i = 0; i < 3; i++) {
        size_t q = td_table_add_row(k);
        td_row_str(s, k, q, "name", names[i]);
        td_row_int(s, k, q, "total_ns", vals[i]);
    }
    td_table_sort(k, "total_ns", 1);
    CHECK_EQ_STR(td_table_cell(k, 0, 0)->s, "c");
    CHECK_EQ_STR(td_table_cell(k, 1, 0)->s, "a");
    CHECK_EQ_STR(td_table_cell(k, 2, 0)->s, "b");
    td_summary_free(s);

    /* td_sum_adopt: what a pass wrote into a summary of its own (on another thread)
     * reads as if written into the main one at that point: scalars and tables in their
     * order, a scalar the main summary has takes the new value, findings after */
    {
        td_summary *one = td_summary_new(), *main_s = td_summary_new(), *side = td_summary_new();
        for (int pass = 0; pass < 2; pass++) {
            td_summary *x = pass ? side : one; /* the part the side summary gets */
            if (pass)
                td_sum_set_int(main_s, "steps.count", "Steps", TD_T_INT, 1);
            else
                td_sum_set_int(one, "steps.count", "Steps", TD_T_INT, 1);
            td_table *t1 = td_sum_table(x, "critical_path", "Critical path");
            td_table_cols(t1, "rank:int:Rank", "bound:text:Bound", NULL);
            size_t q = td_table_add_row(t1);
            td_row_int(x, t1, q, "rank", 3);
            td_row_str(x, t1, q, "bound", "launch \"overhead\"");
            td_sum_set_int(x, "steps.count", "Steps kept", TD_T_INT, 7);
            td_sum_set_str(x, "critical.lane", "Lane", "GPU 0 stream 7");
            td_table *t2 = td_sum_table(x, "critical_path_segments", "Segments");
            td_table_cols(t2, "start_ns:ns:Start", NULL);
            td_row_int(x, t2, td_table_add_row(t2), "start_ns", 42);
            td_sum_finding(x, "the path is %d%% launch-bound", 61);
            td_sum_warning(x, "a warning");
        }
        CHECK_EQ_INT(td_sum_adopt(main_s, side), 1);
        char *ja = json_of(one), *jb = json_of(main_s);
        CHECK_EQ_STR(jb, ja);
        free(ja);
        free(jb);
        /* the adopted table grows in the main summary's arena */
        td_table *seg = td_sum_find_table(main_s, "critical_path_segments");
        CHECK(seg && seg->a == main_s->a);
        if (seg)
            td_row_int(main_s, seg, td_table_add_row(seg), "start_ns", 43);
        /* a name the main summary has: nothing moves */
        td_summary *clash = td_summary_new();
        td_sum_set_int(clash, "other", "Other", TD_T_INT, 1);
        td_sum_table(clash, "critical_path", "Again");
        size_t nt = main_s->ntables, nk = main_s->nkv, ck = clash->nkv, ct = clash->ntables;
        CHECK_EQ_INT(td_sum_adopt(main_s, clash), 0);
        CHECK_EQ_INT(main_s->ntables, nt);
        CHECK_EQ_INT(main_s->nkv, nk);
        CHECK_EQ_INT(clash->nkv, ck);
        CHECK_EQ_INT(clash->ntables, ct);
        td_summary_free(clash);
        td_summary_free(one);
        td_summary_free(main_s);
    }
    /* td_strtab_copy: the copy answers as the table did when copied, whatever either
     * interns after; its strings are the table's own */
    {
        td_strtab *o = td_strtab_new();
        td_str ka = td_intern_cstr(o, "aten::mm"), kb = td_intern_cstr(o, "ncclKernel");
        td_strtab *cp = td_strtab_copy(o);
        for (int i = 0; i < 5000; i++) { /* the original grows and rehashes */
            char nm[32];
            snprintf(nm, sizeof nm, "name %d", i);
            td_intern_cstr(o, nm);
        }
        CHECK_EQ_INT(td_strtab_count(cp), 3);
        CHECK_EQ_STR(td_strget(cp, ka), "aten::mm");
        CHECK(td_strget(cp, kb) == td_strget(o, kb)); /* shared, not copied */
        CHECK_EQ_STR(td_strget(cp, 3), ""); /* interned later in o: unknown to cp */
        CHECK_EQ_INT(td_intern_cstr(cp, "ncclKernel"), kb);
        td_str kc = td_intern_cstr(cp, "only in the copy");
        CHECK_EQ_INT(kc, 3);
        CHECK_EQ_STR(td_strget(cp, kc), "only in the copy");
        CHECK_EQ_STR(td_strget(o, 3), "name 0");
        td_strtab_free(cp);
        CHECK_EQ_STR(td_strget(o, ka), "aten::mm");
        td_strtab_free(o);
    }
    /* td_arena_adopt: blocks of both arenas (small and past a chunk) stay valid, and
     * the adopting arena's current chunk still takes small allocations */
    {
        td_arena *x = td_arena_new(), *y = td_arena_new(), *z = td_arena_new();
        char *a1 = td_arena_strdup(x, "kept"), *b1 = td_arena_strdup(y, "moved");
        char *b2 = td_arena_alloc(y, (size_t)3 << 20);
        b2[((size_t)3 << 20) - 1] = 'e';
        size_t before = td_arena_bytes(x) + td_arena_bytes(y);
        td_arena_adopt(x, y);
        td_arena_adopt(x, z); /* an empty arena */
        CHECK_EQ_INT(td_arena_bytes(x), before);
        char *a2 = td_arena_strdup(x, "next");
        CHECK_EQ_STR(a1, "kept");
        CHECK_EQ_STR(b1, "moved");
        CHECK_EQ_STR(a2, "next");
        CHECK(a2 > a1 && a2 - a1 < 4096); /* the same chunk as before */
        CHECK(b2[((size_t)3 << 20) - 1] == 'e');
        td_arena *w = td_arena_new(); /* adopting into an empty arena */
        td_arena_adopt(w, x);
        CHECK_EQ_STR(b1, "moved");
        td_arena_free(w);
    }

    /* templates: good and bad */
    td_template *tp = NULL;
    td_err e = {0};
    CHECK_EQ_INT(td_template_parse("x.tdt", "title = T {{a}}\n[pdf]\nsection table kernels "
                                   "top=5 title=\"Top kernels\"\n", &tp, &e), TD_OK);
    if (tp) {
        CHECK_EQ_INT(tp->npdf, 1);
        CHECK_EQ_STR(tp->pdf[0].arg, "kernels");
        CHECK_EQ_STR(tp->pdf[0].title, "Top kernels");
        CHECK_EQ_INT(tp->pdf[0].top, 5);
        td_template_free(tp);
    }
    CHECK_EQ_INT(td_template_parse("bad.tdt", "[pdf]\nsection nonsense\n", &tp, &e), TD_E_USAGE);
    CHECK(strstr(e.msg, "bad.tdt:2:") != NULL);
    CHECK_EQ_INT(td_template_parse("bad.tdt", "[pdf]\nsection table kernels top=0\n", &tp, &e),
                 TD_E_USAGE);
    CHECK_EQ_INT(td_template_parse("bad.tdt", "\n\ncolour = red\n", &tp, &e), TD_E_USAGE);
    CHECK(strstr(e.msg, "bad.tdt:3:") != NULL);
    return UNIT_DONE();
}

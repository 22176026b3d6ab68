/* fuzz.h - shared by the libFuzzer harnesses (fuzz_*.c) and the replay driver (replay.c).
 * Each harness defines LLVMFuzzerTestOneInput; see README.md. */
#ifndef TD_FUZZ_H
#define TD_FUZZ_H
#define _GNU_SOURCE
#include "analyse/analyse.h"
#include "read/aiu.h"
#include "read/chrome.h"
#include "read/read.h"
#include "summary/summary.h"
#include "base/util.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file (for code that reads paths): a private file under $TMPDIR whose
 * name ends in suffix; the caller unlinks and frees the returned path. */
static inline char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    size_t n = strlen(dir && *dir ? dir : "/tmp") + strlen(suffix) + 32;
    char *p = malloc(n);
    snprintf(p, n, "%s/tdfuzz.XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    if (fd < 0) {
        free(p);
        return NULL;
    }
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd);
    return p;
}

/* Analysis of whatever was read (every pass runs on fuzzed traces too). */
static inline void fuzz_analyse(td_traceset *set)
{
    td_read_finish(set);
    td_opts o;
    td_opts_default(&o);
    td_summary *s = td_summary_new();
    td_err e = {0};
    if (td_analyse(set, &o, s, &e) == TD_OK) {
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            td_summary_write_json(s, f, &e);
            fclose(f);
        }
    }
    td_summary_free(s);
}

/* Every pass over what was read plus a small trace given as text: an IBM AIU flex trace
 * (aiu != 0) or a Chrome/Kineto one, which the fuzzed input (a compile log, telemetry)
 * joins. */
static inline void fuzz_analyse_beside(td_traceset *set, const char *name, const char *text,
                                       int aiu)
{
    td_err e = {0};
    td_trace *t = td_traceset_add(set, name);
    size_t n = strlen(text);
    if ((aiu ? td_read_aiu(set, t, name, text, n, &e)
             : td_read_chrome_mem(set, t, name, text, n, &e)) == TD_OK)
        fuzz_analyse(set);
}

#endif

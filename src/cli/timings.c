/* cli/timings.c - what --timings prints (cli/internal.h). */
#include "cli/internal.h"
#include <stdio.h>
#include <string.h>

void td_cli_timing(int on, const char *what, int64_t ns)
{
    if (on)
        td_cli_say("timings: %-14s %10.3f ms", what, (double)ns / 1e6);
}

/* The process's peak resident memory so far (VmHWM, KiB), 0 unknown. */
static int64_t peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

void td_cli_pass_time(void *ctx, const char *pass, int64_t ns)
{
    td_cli_passes *p = ctx;
    int i = 0;
    while (i < p->n && strcmp(p->name[i], pass))
        i++;
    if (i == p->n) {
        if (p->n == 64)
            return;
        snprintf(p->name[p->n++], sizeof p->name[0], "%s", pass);
    }
    p->ns[i] += ns;
    p->hwm[i] = peak_rss_kib();
}

void td_cli_passes_print(const td_cli_passes *p)
{
    for (int i = 0; i < p->n; i++)
        td_cli_say("timings:   %-12s %10.3f ms (peak RSS %.1f MiB)", p->name[i],
                   (double)p->ns[i] / 1e6, (double)p->hwm[i] / 1024);
}

/* bench/xplane_read.c - read only (bench/xplane.sh): the model of the inputs (td_read_input, td_read_finish), then the events read, CPU seconds and peak RSS. */
#include "read/read.h"
#include <stdio.h>
#include <sys/resource.h>
int main(int argc, char **argv)
{
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    for (int i = 1; i < argc; i++)
        if (td_read_input(set, argv[i], &e) != TD_OK) { fprintf(stderr, "%s\n", e.msg); return 3; }
    td_read_finish(set);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    size_t ev = 0;
    for (size_t i = 0; i < set->n; i++) ev += set->tr[i]->nev;
    printf("events %zu cpu %.2f s rss %ld KiB\n", ev, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, ru.ru_maxrss);
    td_traceset_free(set);
    return 0;
}

/* replay.c - runs files through a harness's LLVMFuzzerTestOneInput without libFuzzer:
 * the normal builds replay the kept inputs (tests/fuzz/corpus/NAME/) with it, so every
 * crash, hang or leak found stays fixed. Usage: replay_fuzz_NAME FILE|DIR... */
#include "fuzz.h"
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *buf = malloc(cap);
    while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            printf("%s: no inputs kept\n", argv[i]);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        char **names = NULL;
        size_t nn = 0;
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn++] = strdup(de->d_name);
        }
        if (d)
            closedir(d);
        qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], names[k]);
            bad |= run_file(p);
            files++;
            free(names[k]);
        }
        free(names);
    }
    printf("%d inputs replayed\n", files);
    return bad;
}

/* unit.h - minimal unit test helpers. Each test_*.c is one program; it prints one line
 * per failed check and exits non-zero when any failed. */
#ifndef TD_UNIT_H
#define TD_UNIT_H
#include <stdio.h>
#include <string.h>
static int unit_failed, unit_checks;
#define CHECK(cond) do { unit_checks++; if (!(cond)) { unit_failed++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); unit_checks++; \
    if (_a != _b) { unit_failed++; fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", \
    __FILE__, __LINE__, #a, _a, _b); } } while (0)
#define CHECK_EQ_STR(a, b) do { const char *_a = (a), *_b = (b); unit_checks++; \
    if (!_a || !_b || strcmp(_a, _b)) { unit_failed++; fprintf(stderr, \
    "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a ? _a : "(null)", \
    _b ? _b : "(null)"); } } while (0)
#define UNIT_DONE() (fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__, unit_checks, \
    unit_failed), unit_failed ? 1 : 0)
#endif

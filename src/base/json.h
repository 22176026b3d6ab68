/* base/json.h - JSON value writers (Chrome Trace Event files, summary.json), to a FILE.
 * td_json_str writes s as a JSON string ("null" for NULL): invalid UTF-8 becomes U+FFFD,
 * control characters and <>& are \u escapes (safe inside HTML/SVG script blocks).
 * td_json_us writes ns as microseconds with three decimals (exact ns: "12.345");
 * td_json_real the shortest decimal that reads back as the same double ("null" when not
 * finite). td_chrome_meta writes one Chrome metadata pair, the name ("process_name" or
 * "thread_name" in what) and its sort index, each preceded by ",\n". Write errors are
 * left in the FILE's error flag for the caller to check. */
#ifndef TD_JSON_H
#define TD_JSON_H
#include <stdint.h>
#include <stdio.h>

void td_json_str(FILE *f, const char *s);
void td_json_us(FILE *f, int64_t ns);
void td_json_real(FILE *f, double v);
void td_chrome_meta(FILE *f, int64_t pid, int64_t tid, const char *what, const char *name,
                    int64_t sort);

#endif

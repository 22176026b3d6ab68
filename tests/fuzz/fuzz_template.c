/* Templates (.tdt): the parser and the {{key}} filling. */
#include "fuzz.h"
#include "summary/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    td_template *t = NULL;
    td_err e = {0};
    if (td_template_parse("fuzz.tdt", text, &t, &e) == TD_OK) {
        td_summary *s = td_summary_new();
        td_sum_set_str(s, "inputs_label", "Inputs", "x.json");
        free(td_template_fill(t->title, s));
        free(td_template_fill(t->subtitle, s));
        td_summary_free(s);
        td_template_free(t);
    }
    free(text);
    return 0;
}

/* read/samba_int.h - shared by read/samba.c (artifact CSV files) and
 * read/samba_report.c (reports read back); not exported. */
#ifndef TD_READ_SAMBA_INT_H
#define TD_READ_SAMBA_INT_H
#include "read/samba.h"

/* An arena copy of a text value; invalid UTF-8 bytes become U+FFFD. */
const char *td_samba_text(td_arena *ar, const char *v);
/* A hypersection named name with every field unknown (-1 / NAN). */
void td_samba_hs_init(td_samba_hs *h, const char *name);

/* Hypersection name -> index in an array of td_samba_hs: open addressing over td_hash64,
 * room for n names. td_samba_nmap_find returns the slot of name (-1 when absent: store
 * the new index there). slot is malloc'd: free(m.slot). */
typedef struct td_samba_nmap {
    int32_t *slot;
    size_t cap;
} td_samba_nmap;
void td_samba_nmap_init(td_samba_nmap *m, size_t n);
int32_t *td_samba_nmap_find(td_samba_nmap *m, const td_samba_hs *hs, const char *name);

#endif

/* base/text.h - UTF-8 decoding, XML escaping, and name distance for suggestions.
 * Nothing here allocates except through the td_buf it is given. */
#ifndef TD_TEXT_H
#define TD_TEXT_H
#include "base/buf.h"
#include <stddef.h>
#include <stdint.h>

/* Decode one UTF-8 sequence strictly; returns bytes consumed (>= 1); invalid input gives
 * U+FFFD per maximal invalid subpart. */
size_t td_utf8_next(const unsigned char *s, uint32_t *cp);
/* Length of a UTF-8 string in code points (continuation bytes not counted). */
size_t td_utf8_len(const char *s);
/* Append s as escaped XML text (valid in character data and attributes; invalid UTF-8
 * and characters XML forbids become U+FFFD; tabs/newlines become spaces), at most maxcp
 * code points (0 = all; when cut, the last two shown become ".."). */
void td_buf_xml(td_buf *b, const char *s, size_t maxcp);
/* Edit distance between two short names (insert, delete, substitute, swap of neighbours;
 * ASCII case ignored), for "did you mean" suggestions. Names past 63 bytes compare as far. */
size_t td_edit_distance(const char *a, const char *b);

#endif

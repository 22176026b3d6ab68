/* base/util.h - umbrella header: the base layer (and the two io codecs that used to live
 * in base/util.c) in one include, for the files written before the split. New code
 * includes only the headers it uses:
 *   base/err.h     exit codes, td_status + td_status_name, td_err, warnings
 *   base/alloc.h   checked malloc/realloc, TD_PUSH; the out-of-memory policy
 *   base/arena.h   bump allocator
 *   base/strtab.h  string interning
 *   base/buf.h     growable byte buffer
 *   base/text.h    UTF-8, XML escaping, edit distance
 *   base/json.h    JSON value writers
 *   base/hash.h    FNV-1a, SHA-256
 *   base/files.h   atomic output files, small input files
 *   base/fmt.h     time and byte formatting for documents
 *   base/clock.h   monotonic clock, SOURCE_DATE_EPOCH
 *   io/xz.h, io/varint.h
 * Nothing in src/base prints or exits, except the out-of-memory path (base/alloc.h). */
#ifndef TD_UTIL_H
#define TD_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include "base/err.h"
#include "base/alloc.h"
#include "base/arena.h"
#include "base/strtab.h"
#include "base/buf.h"
#include "base/text.h"
#include "base/json.h"
#include "base/hash.h"
#include "base/files.h"
#include "base/fmt.h"
#include "base/clock.h"
#include "io/xz.h"
#include "io/varint.h"

#endif

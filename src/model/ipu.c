/* model/ipu.c - the IPU report's names and its destructor (see model/ipu.h). */
#include "model/ipu.h"
#include <stdlib.h>

static const char *const type_names[TD_IPU__NTYPES] = {
    "OnTileExecute", "DoExchange", "GlobalExchange", "StreamCopyBegin", "StreamCopyMid",
    "StreamCopyEnd", "Sync", "ExternalSync", "SyncAns", "Other"};
static const char *const kind_names[TD_LWP__NKINDS] = {
    "Common", "StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd", "BufferFlush", "Overflow"};
static const char *const dir_names[] = {"", "Host", "RemoteBuffer", "Mixed"};

const char *td_ipu_type_name(int type)
{
    return type >= 0 && type < TD_IPU__NTYPES ? type_names[type] : "Other";
}

const char *td_lwp_kind_name(int kind)
{
    return kind >= 0 && kind < TD_LWP__NKINDS ? kind_names[kind] : "?";
}

const char *td_ipu_dir_name(int dir)
{
    return dir >= 0 && dir <= TD_IPU_DIR_MIXED ? dir_names[dir] : "";
}

void td_ipu_free(td_ipu *p)
{
    if (!p)
        return;
    free(p->runs);
    free(p->steps);
    free(p->sipu);
    free(p->blocks);
    free(p->lwp_tiles);
    free(p);
}

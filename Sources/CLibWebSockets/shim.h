#ifndef CALLGATE_LWS_SHIM_H
#define CALLGATE_LWS_SHIM_H

#include <libwebsockets.h>
#include <string.h>

/* Swift cannot import the LWS_PRE macro expression. */
static inline size_t cg_lws_pre(void) { return LWS_PRE; }

/* A timer node that carries an owner pointer: the sul must be the first member so the
 * lws callback's sul pointer is also a pointer to the whole node. */
typedef struct cg_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
} cg_timer;

static inline void cg_zero(void *p, size_t n) { memset(p, 0, n); }

#endif

#ifndef CALLGATE_HIREDIS_SHIM_H
#define CALLGATE_HIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libev.h>

/* hiredis's libev adapter is a header of static functions: Swift can call none of them. Puts
 * the context's socket on the service thread's libev loop (the one lws runs on). */
static inline int cg_redis_attach(struct ev_loop *loop, redisAsyncContext *context) {
    return redisLibevAttach(loop, context);
}

#endif

#ifndef CALLGATE_LWS_SHIM_H
#define CALLGATE_LWS_SHIM_H

#include <libwebsockets.h>
#include <ev.h>
#include <string.h>

/* Swift cannot import the LWS_PRE macro expression. */
static inline size_t cg_lws_pre(void) { return LWS_PRE; }

/* libev's watcher set-up is macros, which Swift cannot call. */
typedef void (*cg_ev_timer_cb)(struct ev_loop *loop, ev_timer *timer, int revents);

static inline void cg_ev_timer_init(ev_timer *timer, cg_ev_timer_cb cb, void *data) {
    ev_timer_init(timer, cb, 0., 0.);
    timer->data = data;
}

/* (Re)arms a one-shot timer; unlike a bare ev_timer_start this also moves an armed timer. */
static inline void cg_ev_timer_arm(struct ev_loop *loop, ev_timer *timer, double seconds) {
    ev_timer_stop(loop, timer);
    ev_timer_set(timer, seconds, 0.);
    ev_timer_start(loop, timer);
}

static inline void cg_ev_timer_stop(struct ev_loop *loop, ev_timer *timer) {
    ev_timer_stop(loop, timer);
}

/* OpenSSL 3 spells SSL_OP_* as function-like macros, which Swift cannot import: the options
 * that leave only TLS 1.2 and 1.3 (for lws_context_creation_info.ssl_options_set). */
static inline long cg_ssl_options_tls12_minimum(void) {
    return (long)(SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
}

static inline void cg_zero(void *p, size_t n) { memset(p, 0, n); }

#endif

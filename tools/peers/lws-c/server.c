/*
 * Reference broadcast server for tools/bench in plain C on libwebsockets 4.1 (Debian's
 * libwebsockets-dev), on a libev event loop: the "bare C server that writes directly" the bench
 * compares CallGate against.
 *
 * It speaks the subset of CallGate protocol v1 that the bench's `group` scenario uses, exactly as
 * tools/peers/node-ws/server.js does: WS path /ws, subprotocol callgate.v1, `connect` with an
 * HS256 JWT (verified for real with OpenSSL's HMAC), `ping`, `initiateCall` to a group, the
 * caller's cancel (`rejectCall` with status `cancelled`, or `endCall` while ringing), the ring
 * timeout, and the admin API's group routes (PUT/GET/DELETE /v1/groups/{guid}, Authorization:
 * Bearer <admin key>) plus GET /healthz, on the same port. Frames follow proto/schemas. Anything
 * else gets ERR_BAD_REQUEST saying so. Requests are parsed with jansson (lws 4.1.6's own lejp
 * writes object keys past its 128-byte path buffer unchecked, so it is not fit for hostile input).
 *
 * The write rule, on the one service thread: a frame for a socket whose own queue is empty and
 * for which lws holds no unsent tail of an earlier write (lws_partial_buffered() == 0) is written
 * at once with lws_write. Otherwise it joins that socket's bounded queue and the socket asks for
 * LWS_CALLBACK_SERVER_WRITEABLE, which writes exactly one queued frame per callback (asking again
 * while more wait). Nothing is ever written directly while something is queued or buffered, so
 * frames leave in order and are never interleaved. (lws 4.1.6, lws_issue_raw in
 * lib/core-net/output.c: what the kernel does not take is copied to the wsi's buflist_out, the
 * write reports success, and lws sends that tail before any further writeable callback; this
 * holds because no extension, i.e. no permessage-deflate, is offered.) A push is encoded once
 * into one refcounted buffer with LWS_PRE bytes of headroom, shared by every recipient: a direct
 * write reads it, a queue holds a reference. A queue past 512 frames closes its socket with 4008
 * (CallGate's default cap and close code, proto/README.md "Limits"; node-ws has no cap).
 *
 * usage: lws-c --host H --port P --jwt-secret S --admin-key K   (port 0: any free port)
 * prints `listening on HOST:PORT` once it accepts connections. Built by build.sh next to it.
 */
#define _POSIX_C_SOURCE 200809L

#include <libwebsockets.h>
#include <ev.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

/* ------------------------------------------------------------------ limits (proto/README.md) */

#define MAX_MESSAGE (64 * 1024)   /* incoming WS message; more closes with 1009 */
#define MAX_FRAGMENTS 64          /* frames per message; more closes with 1009 */
#define MAX_BODY 65536            /* admin HTTP body; more is 413 */
#define MAX_NESTING 32            /* arrays and objects in a frame, body or token part */
#define MAX_QUEUED 512            /* frames waiting per socket; one more closes with 4008 */
#define MAX_METADATA 4096         /* initiateCall metadata as compact JSON */
#define MAX_UNIX_SECONDS 99999999999.0  /* objects.json UnixSeconds: bounds a token's exp */
#define CONNECT_DEADLINE 10.0     /* seconds; no connect by then: close 4001 */
#define FINISHED_TTL 300.0        /* seconds finished calls answer precise errors */
#define CLOSE_GRACE 5             /* seconds a close may wait for a peer that stopped reading */
#define RX_BUFFER 1024            /* lws receive chunk per socket: small keeps memory low */
#define TX_PACKET (64 * 1024)     /* most one write hands the kernel; 0 would cap it at RX_BUFFER */
#define BAD "ERR_BAD_REQUEST"

/* ------------------------------------------------------------------ small helpers */

/* Every allocation is bounded by the limits above; running out of memory anyway is fatal. */
static void *checked(void *p)
{
	if (!p) {
		fputs("lws-c: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *xmalloc(size_t n) { return checked(malloc(n ? n : 1)); }
static void *xrealloc(void *p, size_t n) { return checked(realloc(p, n ? n : 1)); }

static char *xmemdup(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long wall_millis(void) { return (long long)floor(wall_seconds() * 1000); }
static long long unix_seconds(void) { return (long long)time(NULL); }

static long long unix_millis(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Whether `s` is well-formed UTF-8 (RFC 3629: no overlongs, surrogates or code points past
 * U+10FFFF), as RFC 6455 requires of text messages. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char b = s[i];
		size_t need;
		uint32_t cp, min;
		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; min = 0x80; }
		else if ((b & 0xf0) == 0xe0) { need = 2; cp = b & 0x0f; min = 0x800; }
		else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x07; min = 0x10000; }
		else return false;
		if (n - i <= need)
			return false;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

/* Characters (code points) of valid UTF-8, as JSON Schema's maxLength counts them. */
static size_t utf8_chars(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* 1..max characters, each a letter, a digit or one of `extra`. */
static bool id_chars(const char *s, size_t n, size_t max, const char *extra)
{
	if (n < 1 || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  (ch != '\0' && strchr(extra, ch));
		if (!ok)
			return false;
	}
	return true;
}

static bool session_id_ok(const char *s, size_t n) { return id_chars(s, n, 128, "._:-"); }
static bool resource_id_ok(const char *s, size_t n) { return id_chars(s, n, 100, "_.@:-"); }

/* Whether arrays and objects nest at most `limit` deep, found by a scan that skips strings:
 * refused before the (recursive) parser sees it. Malformed JSON is the parser's to report. */
static bool nesting_within(const char *s, size_t n, int limit)
{
	int depth = 0;
	bool in_string = false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (in_string) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_string = false;
		} else if (ch == '"') {
			in_string = true;
		} else if (ch == '{' || ch == '[') {
			if (++depth > limit)
				return false;
		} else if (ch == '}' || ch == ']') {
			depth--;
		}
	}
	return true;
}

/* Parses JSON of any type (strings may hold NUL; every length is carried), or NULL. */
static json_t *parse_json(const char *s, size_t n)
{
	json_error_t error;
	if (!nesting_within(s, n, MAX_NESTING))
		return NULL;
	return json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
}

static bool present(const json_t *v) { return v && !json_is_null(v); }

/* Whether `v` is the string `text` (jansson strings may hold NUL: lengths are compared too). */
static bool json_eq(const json_t *v, const char *text)
{
	return json_is_string(v) && same(json_string_value(v), json_string_length(v), text, strlen(text));
}

/* JavaScript's Number.isInteger, as node-ws checks `timeout`. */
static bool json_is_whole(const json_t *v)
{
	if (json_is_integer(v))
		return true;
	double d = json_is_real(v) ? json_real_value(v) : NAN;
	return isfinite(d) && floor(d) == d;
}

/* ------------------------------------------------------------------ string-keyed hash map */

/* Chained, seeded FNV-1a. Only authenticated parties insert keys (signed tokens' uids, the
 * admin's guids, our own session ids), so nobody can flood a bucket. Keys point into the value. */
struct map_node {
	struct map_node *next;
	uint64_t hash;
	const char *key;
	size_t len;
	void *value;
};

struct map {
	struct map_node **slots;
	size_t mask, count;
};

static uint64_t hash_seed;

static uint64_t hash_key(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ hash_seed;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static struct map_node **map_find(const struct map *m, const char *key, size_t len, uint64_t h)
{
	if (!m->slots)
		return NULL;
	struct map_node **at = &m->slots[h & m->mask];
	while (*at && !((*at)->hash == h && same((*at)->key, (*at)->len, key, len)))
		at = &(*at)->next;
	return at;
}

static void *map_get(const struct map *m, const char *key, size_t len)
{
	struct map_node **at = map_find(m, key, len, hash_key(key, len));
	return at && *at ? (*at)->value : NULL;
}

/* Sets key -> value; returns the value it replaced, or NULL. */
static void *map_put(struct map *m, const char *key, size_t len, void *value)
{
	uint64_t h = hash_key(key, len);
	struct map_node **at = map_find(m, key, len, h);
	if (at && *at) {
		void *old = (*at)->value;
		(*at)->key = key;
		(*at)->value = value;
		return old;
	}
	if (m->count >= (m->slots ? m->mask + 1 : 0)) {
		size_t size = m->slots ? (m->mask + 1) * 2 : 16;
		struct map_node **slots = checked(calloc(size, sizeof *slots));
		for (size_t i = 0; m->slots && i <= m->mask; i++)
			for (struct map_node *n = m->slots[i], *next; n; n = next) {
				next = n->next;
				n->next = slots[n->hash & (size - 1)];
				slots[n->hash & (size - 1)] = n;
			}
		free(m->slots);
		m->slots = slots;
		m->mask = size - 1;
	}
	struct map_node *n = xmalloc(sizeof *n);
	*n = (struct map_node){ m->slots[h & m->mask], h, key, len, value };
	m->slots[h & m->mask] = n;
	m->count++;
	return NULL;
}

static void *map_del(struct map *m, const char *key, size_t len)
{
	struct map_node **at = map_find(m, key, len, hash_key(key, len));
	if (!at || !*at)
		return NULL;
	struct map_node *n = *at;
	void *value = n->value;
	*at = n->next;
	free(n);
	m->count--;
	return value;
}

/* Frees the nodes (not the values). */
static void map_clear(struct map *m)
{
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		for (struct map_node *n = m->slots[i], *next; n; n = next) {
			next = n->next;
			free(n);
		}
	free(m->slots);
	*m = (struct map){ 0 };
}

#define MAP_EACH(m, node)                                                          \
	for (size_t map_i_ = 0; (m)->slots && map_i_ <= (m)->mask; map_i_++)       \
		for (struct map_node *node = (m)->slots[map_i_]; node; node = node->next)

/* ------------------------------------------------------------------ frames and the JSON writer */

/* One encoded text message: LWS_PRE bytes of headroom (lws_write puts the frame header there,
 * the same bytes for every recipient), then the payload. Shared by reference count. */
struct frame {
	unsigned refs;
	size_t len;
	unsigned char data[];
};

static void frame_unref(struct frame *f)
{
	if (f && --f->refs == 0)
		free(f);
}

static unsigned char *payload(struct frame *f) { return f->data + LWS_PRE; }

/* Builds one frame: JSON appended piece by piece, strings escaped as JSON.stringify does. */
struct jw {
	struct frame *f;
	size_t cap;
};

static void jw_start(struct jw *w)
{
	w->cap = 512;
	w->f = xmalloc(sizeof *w->f + LWS_PRE + w->cap);
	w->f->refs = 1;
	w->f->len = 0;
}

static void jw_mem(struct jw *w, const void *p, size_t n)
{
	if (!n)
		return;
	if (n > w->cap - w->f->len) {
		while (n > w->cap - w->f->len)
			w->cap *= 2;
		w->f = xrealloc(w->f, sizeof *w->f + LWS_PRE + w->cap);
	}
	memcpy(payload(w->f) + w->f->len, p, n);
	w->f->len += n;
}

#define jw_lit(w, literal) jw_mem((w), (literal), sizeof(literal) - 1)

static void jw_cstr(struct jw *w, const char *s) { jw_mem(w, s, strlen(s)); }

/* The inside of a JSON string: quote, backslash and control characters escaped. The input is
 * valid UTF-8 (parsed JSON or our own text), which passes through unchanged. */
static void jw_esc(struct jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		jw_mem(w, s + run, i - run);
		run = i + 1;
		switch (ch) {
		case '"': jw_lit(w, "\\\""); break;
		case '\\': jw_lit(w, "\\\\"); break;
		case '\b': jw_lit(w, "\\b"); break;
		case '\f': jw_lit(w, "\\f"); break;
		case '\n': jw_lit(w, "\\n"); break;
		case '\r': jw_lit(w, "\\r"); break;
		case '\t': jw_lit(w, "\\t"); break;
		default: {
			char u[6] = { '\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15] };
			jw_mem(w, u, sizeof u);
		}
		}
	}
	jw_mem(w, s + run, n - run);
}

static void jw_str(struct jw *w, const char *s, size_t n)
{
	jw_lit(w, "\"");
	jw_esc(w, s, n);
	jw_lit(w, "\"");
}

static void jw_int(struct jw *w, long long v)
{
	char digits[24];
	jw_mem(w, digits, (size_t)snprintf(digits, sizeof digits, "%lld", v));
}

/* A finished piece of JSON kept as text (a user, a group as receiver, metadata). */
struct text {
	char *p;
	size_t n;
};

static struct text jw_take_text(struct jw *w)
{
	struct text t = { xmemdup(payload(w->f), w->f->len), w->f->len };
	free(w->f);
	return t;
}

/* ------------------------------------------------------------------ state (one thread) */

struct call;

/* A connected WebSocket. */
struct conn {
	int kind;                      /* KIND_WS: first, like struct http_req's */
	struct lws *wsi;
	struct user *user;             /* set by a successful connect */
	struct conn *prev, *next;      /* in user->devices */
	struct text user_json;         /* {"uid","name","avatar"?} of its token */
	ev_timer deadline;             /* the connect deadline, then the token's expiry */
	struct frame **queue;          /* ring of frames waiting, capacity a power of two */
	unsigned q_head, q_len, q_cap;
	unsigned char *msg;            /* a message arriving in several chunks */
	size_t msg_len, msg_cap;
	unsigned msg_frames;
	bool in_msg, msg_binary;
	bool connect_sent, auth_failed;
	bool closing;                  /* nothing more is sent: a close is pending or under way */
	bool broken;                   /* a write failed: lws drops the socket */
	uint16_t close_code;           /* the close to start once the queue is empty; 0: none pending */
	const char *close_reason;
	char id[20];                   /* connectionId */
};

enum { KIND_WS = 1, KIND_HTTP };

/* One uid with connected devices or a call it rings as the caller. */
struct user {
	char *uid;
	size_t uid_len;
	struct conn *devices;
	struct call *outgoing;
	unsigned long long seq;        /* the last push's number (the user's push sequence) */
};

/* A group's member list: immutable once built, shared by the group and its ringing calls. */
struct members {
	unsigned refs;
	size_t count;
	struct text *uids;             /* deduplicated, in the PUT's order */
	struct map set;                /* uid -> its struct text */
};

struct group {
	struct text guid, name, icon;  /* icon.p NULL when absent */
	struct members *members;
};

/* Opens a group object with its summary fields (guid, name, icon, membersCount); the caller
 * adds any more fields and the closing brace. */
static void jw_group_fields(struct jw *w, const struct group *grp)
{
	jw_lit(w, "{\"guid\":");
	jw_str(w, grp->guid.p, grp->guid.n);
	jw_lit(w, ",\"name\":");
	jw_str(w, grp->name.p, grp->name.n);
	if (grp->icon.p) {
		jw_lit(w, ",\"icon\":");
		jw_str(w, grp->icon.p, grp->icon.n);
	}
	jw_lit(w, ",\"membersCount\":");
	jw_int(w, (long long)grp->members->count);
}

/* A ringing call. Every live call here rings: nobody can accept. */
struct call {
	char sid[32];
	size_t sid_len;
	char *caller_uid;
	size_t caller_uid_len;
	struct members *members;       /* rung: every member but the caller */
	struct text initiator, receiver, metadata;  /* JSON; metadata.p NULL when absent */
	const char *call_type;
	long long initiated_at;
	long long ring_expires_at;     /* the ring deadline, Unix seconds rounded up */
	char uuid[37];                 /* callUUID: RFC 4122 version 5 of the session id */
	ev_timer ring;
};

/* A call that ended less than FINISHED_TTL ago: ops on it get its precise error. */
struct finished {
	struct finished *next;         /* oldest first */
	ev_tstamp at;
	const char *status;
	size_t sid_len;
	char sid[32];
};

static struct {
	struct ev_loop *loop;
	struct lws_context *lws;
	const char *secret, *admin_key;
	size_t secret_len, admin_key_len;
	struct map users, groups, calls, finished;
	struct finished *finished_head, *finished_tail;
	uint64_t next_conn;
	char epoch[24];                /* every user's push sequence's epoch: one per process */
} g;

/* ------------------------------------------------------------------ the write path */

static void queue_clear(struct conn *c)
{
	for (unsigned i = 0; i < c->q_len; i++)
		frame_unref(c->queue[(c->q_head + i) & (c->q_cap - 1)]);
	free(c->queue);
	c->queue = NULL;
	c->q_head = c->q_len = c->q_cap = 0;
}

static void queue_push(struct conn *c, struct frame *f)
{
	if (c->q_len == c->q_cap) {
		unsigned cap = c->q_cap ? c->q_cap * 2 : 8;
		struct frame **ring = xmalloc(cap * sizeof *ring);
		for (unsigned i = 0; i < c->q_len; i++)
			ring[i] = c->queue[(c->q_head + i) & (c->q_cap - 1)];
		free(c->queue);
		c->queue = ring;
		c->q_head = 0;
		c->q_cap = cap;
	}
	f->refs++;
	c->queue[(c->q_head + c->q_len++) & (c->q_cap - 1)] = f;
}

static struct frame *queue_pop(struct conn *c)
{
	struct frame *f = c->queue[c->q_head];
	c->q_head = (c->q_head + 1) & (c->q_cap - 1);
	if (--c->q_len == 0) {
		free(c->queue);  /* an idle socket holds no ring */
		c->queue = NULL;
		c->q_head = c->q_cap = 0;
	}
	return f;
}

/* Starts closing with `code` once what is queued went out (or at once, dropping it); a peer
 * that does not read is dropped CLOSE_GRACE seconds later. The close itself is written from
 * the writeable callback, when lws holds no unsent tail: a close while lws still flushes one
 * would lose the close frame. */
static void conn_close(struct conn *c, uint16_t code, const char *reason, bool drop_queued)
{
	if (c->closing)
		return;
	c->closing = true;
	c->close_code = code;
	c->close_reason = reason;
	if (drop_queued)
		queue_clear(c);
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, CLOSE_GRACE);
	lws_callback_on_writable(c->wsi);
}

/* A write failed: lws has marked the socket unusable. It is killed at lws's next service, not
 * in the middle of whatever (maybe another socket's callback) was sending. */
static void conn_broken(struct conn *c)
{
	c->closing = c->broken = true;
	c->close_code = 0;
	queue_clear(c);
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

/* The write rule (see the top of the file). */
static void conn_send(struct conn *c, struct frame *f)
{
	if (c->closing)
		return;
	if (c->q_len == 0 && !lws_partial_buffered(c->wsi)) {
		if (lws_write(c->wsi, payload(f), f->len, LWS_WRITE_TEXT) < (int)f->len)
			conn_broken(c);
		return;
	}
	if (c->q_len == MAX_QUEUED) {
		conn_close(c, 4008, "outbound queue full", true);
		return;
	}
	queue_push(c, f);
	if (c->q_len == 1)  /* from here until the queue is empty a writeable callback is pending */
		lws_callback_on_writable(c->wsi);
}

/* LWS_CALLBACK_SERVER_WRITEABLE: one queued frame, or the close once nothing is queued.
 * lws calls it only after it sent any unsent tail. -1 makes lws close the socket: with a
 * reason set it sends that close frame, then waits for the peer's (and may call this again
 * meanwhile: 0 then, or lws would drop the socket at once). */
static int conn_writeable(struct conn *c)
{
	if (c->q_len) {
		struct frame *f = queue_pop(c);
		int written = lws_write(c->wsi, payload(f), f->len, LWS_WRITE_TEXT);
		bool ok = written >= (int)f->len;
		frame_unref(f);
		if (!ok)
			return -1;
		if (c->q_len || c->close_code)
			lws_callback_on_writable(c->wsi);
		return 0;
	}
	if (c->broken)
		return -1;
	if (!c->close_code)
		return 0;
	unsigned char reason[64];
	size_t n = strlen(c->close_reason);
	memcpy(reason, c->close_reason, n);
	lws_close_reason(c->wsi, (enum lws_close_status)c->close_code, reason, n);
	c->close_code = 0;  /* handed to lws */
	return -1;
}

/* ------------------------------------------------------------------ users, groups, calls */

static struct user *user_get(const char *uid, size_t len, bool create)
{
	struct user *u = map_get(&g.users, uid, len);
	if (u || !create)
		return u;
	u = xmalloc(sizeof *u);
	*u = (struct user){ .uid = xmemdup(uid, len), .uid_len = len };
	map_put(&g.users, u->uid, len, u);
	return u;
}

/* Forgets a user with no device and no outgoing call. */
static void user_release(struct user *u)
{
	if (u->devices || u->outgoing)
		return;
	map_del(&g.users, u->uid, u->uid_len);
	free(u->uid);
	free(u);
}

static void members_unref(struct members *m)
{
	if (--m->refs)
		return;
	for (size_t i = 0; i < m->count; i++)
		free(m->uids[i].p);
	free(m->uids);
	map_clear(&m->set);
	free(m);
}

static void group_free(struct group *grp)
{
	free(grp->guid.p);
	free(grp->name.p);
	free(grp->icon.p);
	members_unref(grp->members);
	free(grp);
}

/* Whether the call rings `uid`: a member who is not the caller. */
static bool call_rings(const struct call *call, const char *uid, size_t len)
{
	return !same(uid, len, call->caller_uid, call->caller_uid_len) && map_get(&call->members->set, uid, len);
}

static void call_free(struct call *call)
{
	free(call->caller_uid);
	free(call->initiator.p);
	free(call->receiver.p);
	free(call->metadata.p);
	members_unref(call->members);
	free(call);
}

/* CallGate's callUUID namespace (proto/ringing.md, A push-ready call). */
static const unsigned char UUID_NAMESPACE[16] = {
	0x6f, 0x1c, 0x2a, 0x5e, 0x93, 0x0b, 0x4d, 0x71, 0xa8, 0x44, 0x2e, 0x0d, 0x5b, 0xc3, 0x97, 0x1f,
};

/* `out` (37 bytes): the lowercase RFC 4122 version 5 UUID of `name` under UUID_NAMESPACE. */
static void call_uuid(const char *name, size_t len, char out[37])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int size = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1 || EVP_DigestUpdate(ctx, UUID_NAMESPACE, 16) != 1 ||
	    EVP_DigestUpdate(ctx, name, len) != 1 || EVP_DigestFinal_ex(ctx, digest, &size) != 1) {
		fputs("lws-c: SHA-1 failed\n", stderr);
		abort();
	}
	EVP_MD_CTX_free(ctx);
	digest[6] = (unsigned char)((digest[6] & 0x0f) | 0x50);
	digest[8] = (unsigned char)((digest[8] & 0x3f) | 0x80);
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[at++] = '-';
		out[at++] = hex[digest[i] >> 4];
		out[at++] = hex[digest[i] & 15];
	}
	out[at] = '\0';
}

/* The Call object (objects.json), with `status`, and `endedAt` when nonzero. */
static void jw_call(struct jw *w, const struct call *call, const char *status, long long ended_at)
{
	jw_lit(w, "{\"sessionId\":\"");
	jw_mem(w, call->sid, call->sid_len);
	jw_lit(w, "\",\"callUUID\":\"");
	jw_cstr(w, call->uuid);
	jw_lit(w, "\",\"callType\":\"");
	jw_cstr(w, call->call_type);
	jw_lit(w, "\",\"receiverType\":\"group\",\"callCategory\":\"call\",\"callStatus\":\"");
	jw_cstr(w, status);
	jw_lit(w, "\",\"initiator\":");
	jw_mem(w, call->initiator.p, call->initiator.n);
	jw_lit(w, ",\"receiver\":");
	jw_mem(w, call->receiver.p, call->receiver.n);
	jw_lit(w, ",\"initiatedAt\":");
	jw_int(w, call->initiated_at);
	jw_lit(w, ",\"ringExpiresAt\":");
	jw_int(w, call->ring_expires_at);
	if (call->metadata.p) {
		jw_lit(w, ",\"metadata\":");
		jw_mem(w, call->metadata.p, call->metadata.n);
	}
	if (ended_at) {
		jw_lit(w, ",\"endedAt\":");
		jw_int(w, ended_at);
	}
	jw_lit(w, "}");
}

/* The head of a push {"event","data":{"call", "reason"?}} of a call with `status`: the frame
 * without its closing brace, which send_to_user numbers per user (,"seq":N}). */
static struct frame *call_push(const char *event, const struct call *call, const char *status,
			       long long ended_at, const char *reason)
{
	struct jw w;
	jw_start(&w);
	jw_lit(&w, "{\"event\":\"");
	jw_cstr(&w, event);
	jw_lit(&w, "\",\"data\":{\"call\":");
	jw_call(&w, call, status, ended_at);
	if (reason) {
		jw_lit(&w, ",\"reason\":\"");
		jw_cstr(&w, reason);
		jw_lit(&w, "\"");
	}
	jw_lit(&w, "}");
	return w.f;
}

/* A push head numbered for one user: a frame of its own, head + ,"seq":N}. */
static struct frame *numbered(struct frame *head, unsigned long long seq)
{
	char tail[32];
	int n = snprintf(tail, sizeof tail, ",\"seq\":%llu}", seq);
	struct frame *f = xmalloc(sizeof *f + LWS_PRE + head->len + (size_t)n);
	f->refs = 1;
	f->len = head->len + (size_t)n;
	memcpy(payload(f), payload(head), head->len);
	memcpy(payload(f) + head->len, tail, (size_t)n);
	return f;
}

/* Numbers the push `head` as the user's next one and sends it to each of their devices. */
static void send_to_user(const char *uid, size_t len, struct frame *head)
{
	struct user *u = user_get(uid, len, false);
	if (!u || !u->devices)
		return;
	struct frame *f = numbered(head, ++u->seq);
	for (struct conn *c = u->devices; c; c = c->next)
		conn_send(c, f);
	frame_unref(f);
}

/* Sends one frame to every connected device the call rings. */
static void send_to_rung(const struct call *call, struct frame *f)
{
	const struct members *m = call->members;
	for (size_t i = 0; i < m->count; i++)
		if (!same(m->uids[i].p, m->uids[i].n, call->caller_uid, call->caller_uid_len))
			send_to_user(m->uids[i].p, m->uids[i].n, f);
}

/* Ends a ringing call with a terminal status: it leaves the live tables and is remembered as
 * finished. The caller frees it after its last push. Returns endedAt. */
static long long call_finish(struct call *call, const char *status)
{
	ev_timer_stop(g.loop, &call->ring);
	map_del(&g.calls, call->sid, call->sid_len);
	struct user *caller = user_get(call->caller_uid, call->caller_uid_len, false);
	caller->outgoing = NULL;
	user_release(caller);
	struct finished *done = xmalloc(sizeof *done);
	*done = (struct finished){ .at = ev_now(g.loop), .status = status, .sid_len = call->sid_len };
	memcpy(done->sid, call->sid, call->sid_len);
	map_put(&g.finished, done->sid, done->sid_len, done);
	if (g.finished_tail)
		g.finished_tail->next = done;
	else
		g.finished_head = done;
	g.finished_tail = done;
	return unix_seconds();
}

static void ring_timeout(struct ev_loop *loop, ev_timer *timer, int revents)
{
	(void)loop;
	(void)revents;
	struct call *call = timer->data;
	long long ended = call_finish(call, "unanswered");
	struct frame *f = call_push("onOutgoingCallRejected", call, "unanswered", ended, NULL);
	send_to_user(call->caller_uid, call->caller_uid_len, f);
	frame_unref(f);
	f = call_push("onIncomingCallCanceled", call, "unanswered", ended, "unanswered");
	send_to_rung(call, f);
	frame_unref(f);
	call_free(call);
}

/* Forgets finished calls older than FINISHED_TTL; runs once a minute. */
static void sweep_finished(struct ev_loop *loop, ev_timer *timer, int revents)
{
	(void)timer;
	(void)revents;
	ev_tstamp limit = ev_now(loop) - FINISHED_TTL;
	while (g.finished_head && g.finished_head->at < limit) {
		struct finished *done = g.finished_head;
		g.finished_head = done->next;
		map_del(&g.finished, done->sid, done->sid_len);
		free(done);
	}
	if (!g.finished_head)
		g.finished_tail = NULL;
}

/* ------------------------------------------------------------------ JWT (HS256 only) */

/* Unpadded base64url ([A-Za-z0-9_-]*) into `out` (room for n * 3 / 4 bytes); false on any other
 * character or a length no encoder produces (4k + 1). */
static bool b64url_decode(const char *s, size_t n, unsigned char *out, size_t *out_len)
{
	uint32_t acc = 0;
	size_t bits = 0, k = 0;
	if (n % 4 == 1)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		int v = ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26 :
			ch >= '0' && ch <= '9' ? ch - '0' + 52 : ch == '-' ? 62 : ch == '_' ? 63 : -1;
		if (v < 0)
			return false;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	*out_len = k;
	return true;
}

static json_t *b64url_json(const char *s, size_t n)
{
	unsigned char *raw = xmalloc(n * 3 / 4 + 1);
	size_t len;
	json_t *v = b64url_decode(s, n, raw, &len) ? parse_json((const char *)raw, len) : NULL;
	free(raw);
	return v;
}

struct identity {
	char *uid;
	size_t uid_len;
	struct text user_json;
	long long exp;
};

/* The identity of a valid connection token, or false: malformed, not HS256, wrongly signed,
 * expired (or an exp past objects.json's UnixSeconds), no sub, or a call token (it has `typ`). */
static bool verify_token(const char *token, size_t n, struct identity *id)
{
	const char *dot1 = memchr(token, '.', n);
	const char *dot2 = dot1 ? memchr(dot1 + 1, '.', n - (size_t)(dot1 + 1 - token)) : NULL;
	if (!dot2 || memchr(dot2 + 1, '.', n - (size_t)(dot2 + 1 - token)))
		return false;
	const char *sig = dot2 + 1;
	size_t sig_len = n - (size_t)(sig - token);
	unsigned char given[EVP_MAX_MD_SIZE], expected[EVP_MAX_MD_SIZE];
	size_t given_len;
	unsigned expected_len;
	if (sig_len > 86 || !b64url_decode(sig, sig_len, given, &given_len))  /* 86: 64 bytes */
		return false;

	json_t *header = b64url_json(token, (size_t)(dot1 - token));
	json_t *alg = json_object_get(header, "alg");
	bool hs256 = json_is_string(alg) && same(json_string_value(alg), json_string_length(alg), "HS256", 5);
	json_decref(header);
	if (!hs256)
		return false;
	if (!HMAC(EVP_sha256(), g.secret, (int)g.secret_len, (const unsigned char *)token, (size_t)(dot2 - token),
		  expected, &expected_len) ||
	    given_len != expected_len || CRYPTO_memcmp(given, expected, expected_len) != 0)
		return false;

	json_t *claims = b64url_json(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	json_t *sub = json_object_get(claims, "sub"), *exp = json_object_get(claims, "exp");
	json_t *name = json_object_get(claims, "name"), *avatar = json_object_get(claims, "avatar");
	double expires = json_is_number(exp) ? json_number_value(exp) : NAN;
	bool ok = json_is_object(claims) && json_is_string(sub) && json_string_length(sub) > 0 &&
		  expires > wall_seconds() && expires <= MAX_UNIX_SECONDS && !json_object_get(claims, "typ");
	if (ok) {
		struct jw w;
		if (!json_is_string(name))
			name = sub;
		id->uid_len = json_string_length(sub);
		id->uid = xmemdup(json_string_value(sub), id->uid_len);
		id->exp = (long long)floor(expires);
		jw_start(&w);
		jw_lit(&w, "{\"uid\":");
		jw_str(&w, id->uid, id->uid_len);
		jw_lit(&w, ",\"name\":");
		jw_str(&w, json_string_value(name), json_string_length(name));
		if (json_is_string(avatar)) {
			jw_lit(&w, ",\"avatar\":");
			jw_str(&w, json_string_value(avatar), json_string_length(avatar));
		}
		jw_lit(&w, "}");
		id->user_json = jw_take_text(&w);
	}
	json_decref(claims);
	return ok;
}

/* ------------------------------------------------------------------ requests */

/* Why a request failed: `code` and the message msg + arg + tail (arg echoes request text). */
struct fail {
	const char *code, *msg, *arg, *tail;
	size_t arg_len;
};

static bool fail(struct fail *f, const char *code, const char *msg)
{
	*f = (struct fail){ .code = code, .msg = msg, .tail = "" };
	return false;
}

static bool fail_with(struct fail *f, const char *code, const char *msg, const char *arg, size_t arg_len,
		      const char *tail)
{
	*f = (struct fail){ code, msg, arg, tail, arg_len };
	return false;
}

/* What an op does after its reply went out: a push to the devices a call rings, then maybe
 * freeing the call (it was finished). */
struct after {
	struct frame *push;
	struct call *call;
	bool free_call;
};

static void conn_error(struct conn *c, const json_t *id, const struct fail *f)
{
	struct jw w;
	jw_start(&w);
	jw_lit(&w, "{");
	if (id) {
		jw_lit(&w, "\"id\":");
		jw_str(&w, json_string_value(id), json_string_length(id));
		jw_lit(&w, ",");
	}
	jw_lit(&w, "\"error\":{\"code\":\"");
	jw_cstr(&w, f->code);
	jw_lit(&w, "\",\"message\":\"");
	jw_esc(&w, f->msg, strlen(f->msg));
	if (f->arg)
		jw_esc(&w, f->arg, f->arg_len);
	jw_esc(&w, f->tail, strlen(f->tail));
	jw_lit(&w, "\"}}");
	conn_send(c, w.f);
	frame_unref(w.f);
}

static void deadline_passed(struct ev_loop *loop, ev_timer *timer, int revents)
{
	(void)loop;
	(void)revents;
	struct conn *c = timer->data;
	if (c->user)
		conn_close(c, 4003, "token expired", false);
	else
		conn_close(c, 4001, "unauthorized", false);
}

static bool op_connect(struct conn *c, json_t *data, struct jw *w, struct fail *f)
{
	json_t *token = json_object_get(data, "token");
	struct identity id;
	if (!json_is_string(token))
		return fail(f, BAD, "data.token must be a string");
	if (c->connect_sent)
		return fail(f, BAD, "this socket already sent connect");
	c->connect_sent = true;
	if (!verify_token(json_string_value(token), json_string_length(token), &id)) {
		c->auth_failed = true;
		return fail(f, "AUTH_ERR", "the token is malformed, wrongly signed or expired");
	}
	/* The socket lives as long as its token: close 4003 at exp. */
	ev_timer_stop(g.loop, &c->deadline);
	ev_timer_set(&c->deadline, fmax(0.0, (double)id.exp - wall_seconds()), 0.);
	ev_timer_start(g.loop, &c->deadline);
	c->user_json = id.user_json;
	c->user = user_get(id.uid, id.uid_len, true);
	c->next = c->user->devices;
	if (c->next)
		c->next->prev = c;
	c->user->devices = c;

	jw_lit(w, "{\"user\":");
	jw_mem(w, c->user_json.p, c->user_json.n);
	jw_lit(w, ",\"connectionId\":\"");
	jw_cstr(w, c->id);
	jw_lit(w, "\",\"serverTime\":");
	jw_int(w, wall_millis());
	jw_lit(w, ",\"activeCalls\":[");
	bool first = true;
	MAP_EACH(&g.calls, node) {
		struct call *call = node->value;
		if (same(call->caller_uid, call->caller_uid_len, id.uid, id.uid_len) || call_rings(call, id.uid, id.uid_len)) {
			if (!first)
				jw_lit(w, ",");
			first = false;
			jw_call(w, call, "initiated", 0);
		}
	}
	jw_lit(w, "],\"tokenExpiresAt\":");
	jw_int(w, id.exp);
	jw_lit(w, ",\"epoch\":\"");
	jw_cstr(w, g.epoch);
	jw_lit(w, "\",\"seq\":");
	jw_int(w, (long long)c->user->seq);
	jw_lit(w, ",\"resumedSessions\":[]}");
	free(id.uid);
	return true;
}

/* initiateCall's field types and enums, checked before the login check ("Which error wins"). */
static bool check_initiate_fields(json_t *data, struct fail *f)
{
	json_t *type = json_object_get(data, "receiverType"), *media = json_object_get(data, "callType");
	json_t *timeout = json_object_get(data, "timeout"), *metadata = json_object_get(data, "metadata");
	if (!json_is_string(json_object_get(data, "receiverId")))
		return fail(f, BAD, "data.receiverId must be a string");
	if (!json_eq(type, "user") && !json_eq(type, "group"))
		return fail(f, BAD, "data.receiverType must be \"user\" or \"group\"");
	if (!json_eq(media, "audio") && !json_eq(media, "video"))
		return fail(f, BAD, "data.callType must be \"audio\" or \"video\"");
	if (present(timeout) && !json_is_whole(timeout))
		return fail(f, BAD, "data.timeout must be an integer");
	if (present(metadata) && !json_is_object(metadata))
		return fail(f, BAD, "data.metadata must be an object");
	return true;
}

static bool op_initiate(struct conn *c, json_t *data, struct jw *w, struct fail *f, struct after *after)
{
	json_t *receiver = json_object_get(data, "receiverId"), *timeout = json_object_get(data, "timeout");
	json_t *metadata = json_object_get(data, "metadata");
	const char *guid = json_string_value(receiver);
	size_t guid_len = json_string_length(receiver), guid_chars = utf8_chars(guid, guid_len);
	double seconds = present(timeout) ? json_number_value(timeout) : 45;
	struct text meta = { 0 };
	if (guid_chars < 1 || guid_chars > 100)
		return fail(f, BAD, "data.receiverId must be 1 to 100 characters");
	if (seconds < 1 || seconds > 300)
		return fail(f, BAD, "data.timeout must be 1 to 300");
	if (present(metadata)) {
		size_t n = json_dumpb(metadata, NULL, 0, JSON_COMPACT);
		if (n == 0 || n > MAX_METADATA)
			return fail(f, BAD, "data.metadata is over 4096 bytes");
		meta.p = xmalloc(n + 1);
		meta.n = json_dumpb(metadata, meta.p, n, JSON_COMPACT);
	}
	if (json_eq(json_object_get(data, "receiverType"), "user")) {
		free(meta.p);
		return fail(f, BAD, "this reference peer only rings groups (receiverType \"group\")");
	}
	struct user *caller = c->user;
	struct group *grp = map_get(&g.groups, guid, guid_len);
	if (caller->outgoing) {
		free(meta.p);
		return fail(f, "ERROR_CALL_IN_PROGRESS", "you are already ringing someone");
	}
	if (!grp || !map_get(&grp->members->set, caller->uid, caller->uid_len)) {
		free(meta.p);
		return fail_with(f, "ERR_GROUP_NOT_FOUND", "no group ", guid, guid_len, " with you as a member");
	}
	if (grp->members->count < 2) {
		free(meta.p);
		return fail(f, BAD, "the group has no member besides you");
	}

	struct call *call = xmalloc(sizeof *call);
	struct jw rw;
	*call = (struct call){
		.caller_uid = xmemdup(caller->uid, caller->uid_len), .caller_uid_len = caller->uid_len,
		.members = grp->members, .initiator = { xmemdup(c->user_json.p, c->user_json.n), c->user_json.n },
		.metadata = meta, .initiated_at = unix_seconds(),
		.call_type = json_eq(json_object_get(data, "callType"), "audio") ? "audio" : "video",
	};
	grp->members->refs++;
	do {  /* "c." and 18 random bytes in base64url: unguessable, and unique among known calls */
		static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
		unsigned char raw[18];
		if (RAND_bytes(raw, sizeof raw) != 1) {
			fputs("lws-c: RAND_bytes failed\n", stderr);
			abort();
		}
		memcpy(call->sid, "c.", 2);
		for (size_t i = 0; i < sizeof raw; i += 3) {
			uint32_t v = (uint32_t)raw[i] << 16 | (uint32_t)raw[i + 1] << 8 | raw[i + 2];
			for (int k = 0; k < 4; k++)
				call->sid[2 + i / 3 * 4 + (size_t)k] = b64[(v >> (18 - 6 * k)) & 63];
		}
		call->sid_len = 26;
	} while (map_get(&g.calls, call->sid, call->sid_len) || map_get(&g.finished, call->sid, call->sid_len));
	call_uuid(call->sid, call->sid_len, call->uuid);
	call->ring_expires_at = (unix_millis() + (long long)(seconds * 1000) + 999) / 1000;
	jw_start(&rw);
	jw_group_fields(&rw, grp);
	jw_lit(&rw, "}");
	call->receiver = jw_take_text(&rw);
	ev_timer_init(&call->ring, ring_timeout, seconds, 0.);
	call->ring.data = call;
	ev_timer_start(g.loop, &call->ring);
	map_put(&g.calls, call->sid, call->sid_len, call);
	caller->outgoing = call;

	jw_call(w, call, "initiated", 0);
	*after = (struct after){ call_push("onIncomingCallReceived", call, "initiated", 0, NULL), call, false };
	return true;
}

/* The live call for a ringing op, or the precise error for a finished or unknown one. */
static struct call *live_call(json_t *data, struct fail *f)
{
	json_t *sid = json_object_get(data, "sessionId");
	const char *s = json_string_value(sid);
	size_t n = json_string_length(sid);
	if (!session_id_ok(s, n)) {
		fail(f, "ERR_INVALID_SESSION_ID", "sessionId is not 1..128 characters of [A-Za-z0-9._:-]");
		return NULL;
	}
	struct call *call = map_get(&g.calls, s, n);
	if (call)
		return call;
	struct finished *done = map_get(&g.finished, s, n);
	if (done && ev_now(g.loop) - done->at < FINISHED_TTL) {
		const char *code = !strcmp(done->status, "cancelled") ? "ERR_CALL_CANCELLED" : "ERR_CALL_ENDED";
		fail_with(f, code, "the call is over (", done->status, strlen(done->status), ")");
		return NULL;
	}
	fail(f, "ERR_CALL_NOT_FOUND", "no such call");
	return NULL;
}

/* The caller's cancel: rejectCall {status: "cancelled"} or endCall on a ringing call. */
static void cancel(struct call *call, struct jw *w, struct after *after)
{
	long long ended = call_finish(call, "cancelled");
	jw_call(w, call, "cancelled", ended);
	*after = (struct after){ call_push("onIncomingCallCanceled", call, "cancelled", ended, "cancelled"), call, true };
}

static bool op_reject(struct conn *c, json_t *data, struct jw *w, struct fail *f, struct after *after)
{
	struct call *call = live_call(data, f);
	if (!call)
		return false;
	bool is_caller = same(call->caller_uid, call->caller_uid_len, c->user->uid, c->user->uid_len);
	if (json_eq(json_object_get(data, "status"), "cancelled")) {
		if (!is_caller)
			return fail(f, "ERR_NOT_PARTICIPANT", "only the caller cancels");
		cancel(call, w, after);
		return true;
	}
	if (!call_rings(call, c->user->uid, c->user->uid_len))
		return fail(f, "ERR_NOT_PARTICIPANT", "this call does not ring you");
	return fail(f, BAD, "declining is not implemented by this reference peer");
}

static bool op_end(struct conn *c, json_t *data, struct jw *w, struct fail *f, struct after *after)
{
	struct call *call = live_call(data, f);
	if (!call)
		return false;
	if (!same(call->caller_uid, call->caller_uid_len, c->user->uid, c->user->uid_len))
		return fail(f, "ERR_NOT_PARTICIPANT", "you are not a participant of this call");
	cancel(call, w, after);  /* every live call here still rings: the caller's endCall cancels it */
	return true;
}

enum op { OP_CONNECT, OP_PING, OP_INITIATE, OP_REJECT, OP_END, OP_NONE };

static const char *const op_names[] = { "connect", "ping", "initiateCall", "rejectCall", "endCall" };
static const char *const not_here[] = { "acceptCall", "generateToken", "joinSession", "leaveSession",
					"setMuted", "startRecording", "stopRecording", "switchToVideo" };

static enum op op_of(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
		if (same(s, n, op_names[i], strlen(op_names[i])))
			return (enum op)i;
	return OP_NONE;
}

/* Runs one request: field checks before the login check, then the op. */
static bool run_op(struct conn *c, enum op op, json_t *data, struct jw *w, struct fail *f, struct after *after)
{
	if (op == OP_CONNECT)
		return op_connect(c, data, w, f);
	if (op == OP_REJECT || op == OP_END) {
		json_t *status = json_object_get(data, "status");
		if (!json_is_string(json_object_get(data, "sessionId")))
			return fail(f, BAD, "data.sessionId must be a string");
		if (op == OP_REJECT && !json_eq(status, "rejected") && !json_eq(status, "busy") && !json_eq(status, "cancelled"))
			return fail(f, BAD, "data.status must be \"rejected\", \"busy\" or \"cancelled\"");
	}
	if (op == OP_INITIATE && !check_initiate_fields(data, f))
		return false;
	if (!c->user)
		return fail(f, "ERR_USER_NOT_LOGGED_IN", "send connect first");
	switch (op) {
	case OP_PING:
		jw_lit(w, "{\"serverTime\":");
		jw_int(w, wall_millis());
		jw_lit(w, "}");
		return true;
	case OP_INITIATE: return op_initiate(c, data, w, f, after);
	case OP_REJECT: return op_reject(c, data, w, f, after);
	default: return op_end(c, data, w, f, after);
	}
}

/* One text message: the reply goes to `c`, then the op's push to the devices it rings. */
static void handle(struct conn *c, const char *text, size_t len)
{
	struct fail f;
	struct after after = { 0 };
	json_t *frame = parse_json(text, len), *id = json_object_get(frame, "id"), *op = json_object_get(frame, "op");
	json_t *data = json_object_get(frame, "data");

	if (!frame) {
		fail(&f, BAD, nesting_within(text, len, MAX_NESTING) ? "the frame is not JSON" :
								   "the frame nests arrays and objects deeper than 32 levels");
		conn_error(c, NULL, &f);
		return;
	}
	size_t id_chars = json_is_string(id) ? utf8_chars(json_string_value(id), json_string_length(id)) : 0;
	if (!json_is_object(frame) || id_chars < 1 || id_chars > 64) {
		fail(&f, BAD, json_is_object(frame) ? "id must be a string of 1 to 64 characters" : "the frame is not a JSON object");
		conn_error(c, NULL, &f);
		json_decref(frame);
		return;
	}
	enum op which = OP_NONE;
	bool ok;
	struct jw w;
	jw_start(&w);
	jw_lit(&w, "{\"id\":");
	jw_str(&w, json_string_value(id), json_string_length(id));
	jw_lit(&w, ",\"result\":");
	if (!json_is_string(op)) {
		ok = fail(&f, BAD, "op must be a string");
	} else if ((which = op_of(json_string_value(op), json_string_length(op))) == OP_NONE) {
		bool known = false;
		for (size_t i = 0; i < sizeof not_here / sizeof *not_here; i++)
			known |= same(json_string_value(op), json_string_length(op), not_here[i], strlen(not_here[i]));
		ok = known ? fail_with(&f, BAD, "op ", json_string_value(op), json_string_length(op),
				       " is not implemented by this reference peer")
			   : fail_with(&f, BAD, "unknown op: ", json_string_value(op), json_string_length(op), "");
	} else if (present(data) && !json_is_object(data)) {
		ok = fail(&f, BAD, "data must be an object");
	} else {
		ok = run_op(c, which, present(data) ? data : NULL, &w, &f, &after);
	}
	if (ok) {
		jw_lit(&w, "}");
		conn_send(c, w.f);
	} else {
		conn_error(c, id, &f);
	}
	frame_unref(w.f);
	json_decref(frame);
	if (after.push) {
		send_to_rung(after.call, after.push);
		frame_unref(after.push);
	}
	if (after.free_call)
		call_free(after.call);
	if (c->auth_failed)
		conn_close(c, 4001, "unauthorized", false);
}

/* ------------------------------------------------------------------ WebSocket lifecycle */

static int ws_open(struct lws *wsi)
{
	struct conn *c = xmalloc(sizeof *c);
	*c = (struct conn){ .kind = KIND_WS, .wsi = wsi };
	snprintf(c->id, sizeof c->id, "l%llx", (unsigned long long)g.next_conn++);
	ev_timer_init(&c->deadline, deadline_passed, CONNECT_DEADLINE, 0.);
	c->deadline.data = c;
	ev_timer_start(g.loop, &c->deadline);
	lws_set_opaque_user_data(wsi, c);
	return 0;
}

/* lws_close_reason then -1 from a receive callback: lws sends the close frame and drops it. */
static int ws_fail(struct conn *c, uint16_t code, const char *reason)
{
	unsigned char text[64];
	size_t n = strlen(reason);
	memcpy(text, reason, n);
	c->closing = true;
	queue_clear(c);
	lws_close_reason(c->wsi, (enum lws_close_status)code, text, n);
	return -1;
}

/* One RECEIVE: a chunk of at most RX_BUFFER bytes of a frame (maybe empty). A message ends with
 * the last chunk of its final frame. Messages arriving in one chunk are handled in place. */
static int ws_receive(struct conn *c, const unsigned char *in, size_t len)
{
	size_t remaining = lws_remaining_packet_payload(c->wsi);
	bool last = lws_is_final_fragment(c->wsi);
	if (c->closing)
		return 0;  /* what it sends while its close goes out is ignored */
	if (!c->in_msg) {
		c->in_msg = true;
		c->msg_binary = lws_frame_is_binary(c->wsi);
		c->msg_frames = 0;
	}
	if (c->msg_len + len + remaining > MAX_MESSAGE)
		return ws_fail(c, 1009, "message too big");
	if (remaining == 0 && ++c->msg_frames > MAX_FRAGMENTS)
		return ws_fail(c, 1009, "too many fragments");
	if (!last || c->msg_len) {
		if (len > c->msg_cap - c->msg_len) {  /* doubling, at most MAX_MESSAGE */
			size_t cap = 2 * c->msg_cap > c->msg_len + len ? 2 * c->msg_cap : c->msg_len + len;
			c->msg_cap = cap < MAX_MESSAGE ? cap : MAX_MESSAGE;
			c->msg = xrealloc(c->msg, c->msg_cap);
		}
		if (len)
			memcpy(c->msg + c->msg_len, in, len);
		c->msg_len += len;
		if (!last)
			return 0;
		in = c->msg ? c->msg : (const unsigned char *)"";
		len = c->msg_len;
	}
	c->in_msg = false;
	int result = 0;
	if (c->msg_binary) {
		struct fail f;
		fail(&f, BAD, "binary frames are not accepted");
		conn_error(c, NULL, &f);
	} else if (!utf8_valid(in, len)) {
		result = ws_fail(c, 1007, "text is not valid UTF-8");
	} else {
		handle(c, (const char *)in, len);
	}
	free(c->msg);
	c->msg = NULL;
	c->msg_len = c->msg_cap = 0;
	return result;
}

static void ws_closed(struct conn *c)
{
	ev_timer_stop(g.loop, &c->deadline);
	queue_clear(c);
	if (c->user) {
		if (c->prev)
			c->prev->next = c->next;
		else
			c->user->devices = c->next;
		if (c->next)
			c->next->prev = c->prev;
		user_release(c->user);
		/* Not implemented here: the caller's grace period; a call whose caller is gone rings until its timeout. */
	}
	free(c->user_json.p);
	free(c->msg);
	free(c);
}

/* ------------------------------------------------------------------ admin HTTP */

/* A request whose body is still arriving. */
struct http_req {
	int kind;  /* KIND_HTTP */
	int method;
	bool authorized;
	char *path;
	size_t path_len;
	unsigned char *body;
	size_t body_len, body_cap;
};

/* Writes a whole response (head and body) in one lws_write; lws keeps what the kernel does not
 * take and sends it before anything else. `name` is a lower-case header name with its colon. */
static bool http_send(struct lws *wsi, unsigned status, const struct frame *body, const char *name, const char *value,
		      bool close)
{
	enum { HEAD_ROOM = 512 };
	size_t body_len = body ? body->len : 0;
	unsigned char *buf = xmalloc(LWS_PRE + HEAD_ROOM + body_len), *start = buf + LWS_PRE, *p = start;
	unsigned char *end = start + HEAD_ROOM;
	bool ok = !lws_add_http_header_status(wsi, status, &p, end) &&
		  (!body || (!lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
							    (const unsigned char *)"application/json", 16, &p, end) &&
			     !lws_add_http_header_content_length(wsi, body_len, &p, end))) &&
		  (!name || !lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
							 (int)strlen(value), &p, end)) &&
		  (!close || !lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5,
							    &p, end)) &&
		  !lws_finalize_http_header(wsi, &p, end);
	if (ok) {
		if (body_len)
			memcpy(p, body->data + LWS_PRE, body_len);
		ok = lws_write(wsi, start, (size_t)(p - start) + body_len, LWS_WRITE_HTTP_HEADERS) >= 0;
	}
	free(buf);
	return ok;
}

static bool http_error(struct lws *wsi, unsigned status, const char *code, const char *msg, const char *arg,
		       size_t arg_len, const char *name, const char *value, bool close)
{
	struct jw w;
	jw_start(&w);
	jw_lit(&w, "{\"error\":{\"code\":\"");
	jw_cstr(&w, code);
	jw_lit(&w, "\",\"message\":\"");
	jw_esc(&w, msg, strlen(msg));
	if (arg)
		jw_esc(&w, arg, arg_len);
	jw_lit(&w, "\"}}");
	bool ok = http_send(wsi, status, w.f, name, value, close);
	frame_unref(w.f);
	return ok;
}

static bool group_detail(struct lws *wsi, const struct group *grp)
{
	struct jw w;
	jw_start(&w);
	jw_group_fields(&w, grp);
	jw_lit(&w, ",\"members\":[");
	for (size_t i = 0; i < grp->members->count; i++) {
		if (i)
			jw_lit(&w, ",");
		jw_str(&w, grp->members->uids[i].p, grp->members->uids[i].n);
	}
	jw_lit(&w, "]}");
	bool ok = http_send(wsi, 200, w.f, NULL, NULL, false);
	frame_unref(w.f);
	return ok;
}

/* The group of a PUT body, or NULL with the message for a 400. */
static struct group *parse_group_put(const char *guid, size_t guid_len, const unsigned char *body, size_t len,
				     const char **problem)
{
	json_t *v = parse_json((const char *)body, len);
	json_t *name = json_object_get(v, "name"), *icon = json_object_get(v, "icon"), *list = json_object_get(v, "members");
	size_t chars = json_is_string(name) ? utf8_chars(json_string_value(name), json_string_length(name)) : 0;
	*problem = !v				 ? (nesting_within((const char *)body, len, MAX_NESTING)
							    ? "the body is not JSON"
							    : "the body nests arrays and objects deeper than 32 levels")
		   : !json_is_object(v)		 ? "the body must be a JSON object"
		   : chars < 1 || chars > 200	 ? "name must be a string of 1 to 200 characters"
		   : present(icon) && !json_is_string(icon) ? "icon must be a string"
		   : !json_is_array(list)	 ? "members must be an array of uids"
						 : NULL;
	for (size_t i = 0; !*problem && i < json_array_size(list); i++) {
		json_t *uid = json_array_get(list, i);
		if (!json_is_string(uid) || !resource_id_ok(json_string_value(uid), json_string_length(uid)))
			*problem = "members must be uids of 1 to 100 characters of [A-Za-z0-9_.@:-]";
	}
	if (*problem) {
		json_decref(v);
		return NULL;
	}
	struct members *m = xmalloc(sizeof *m);
	*m = (struct members){ .refs = 1, .uids = xmalloc(json_array_size(list) * sizeof *m->uids) };
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *uid = json_array_get(list, i);
		const char *s = json_string_value(uid);
		size_t n = json_string_length(uid);
		if (map_get(&m->set, s, n))
			continue;
		m->uids[m->count] = (struct text){ xmemdup(s, n), n };
		map_put(&m->set, m->uids[m->count].p, n, &m->uids[m->count]);
		m->count++;
	}
	struct group *grp = xmalloc(sizeof *grp);
	*grp = (struct group){
		.guid = { xmemdup(guid, guid_len), guid_len },
		.name = { xmemdup(json_string_value(name), json_string_length(name)), json_string_length(name) },
		.members = m,
	};
	if (present(icon))
		grp->icon = (struct text){ xmemdup(json_string_value(icon), json_string_length(icon)), json_string_length(icon) };
	json_decref(v);
	return grp;
}

/* Answers one request; false when the connection must close (the response could not be written). */
static bool http_route(struct lws *wsi, int method, const char *path, size_t len, bool authorized,
		       const unsigned char *body, size_t body_len, bool close)
{
	if (same(path, len, "/healthz", 8)) {
		if (method != LWSHUMETH_GET)
			return http_error(wsi, 405, "ERR_METHOD_NOT_ALLOWED", "use GET", NULL, 0, "allow:", "GET", close);
		struct jw w;
		jw_start(&w);
		jw_lit(&w, "{\"status\":\"ok\"}");
		bool ok = http_send(wsi, 200, w.f, NULL, NULL, close);
		frame_unref(w.f);
		return ok;
	}
	if (!same(path, len, "/v1", 3) && !(len > 3 && !memcmp(path, "/v1/", 4)))
		return http_error(wsi, 404, "ERR_NOT_FOUND", "no such path", NULL, 0, NULL, NULL, close);
	if (!authorized)
		return http_error(wsi, 401, "ERR_UNAUTHORIZED", "missing or wrong admin key", NULL, 0, "www-authenticate:",
				  "Bearer", close);
	static const char prefix[] = "/v1/groups/";
	const size_t skip = sizeof prefix - 1;
	const char *guid = path + skip;
	size_t guid_len = len > skip ? len - skip : 0;
	if (!guid_len || memcmp(path, prefix, skip) || memchr(guid, '/', guid_len))
		return http_error(wsi, 404, "ERR_NOT_FOUND", "no such route", NULL, 0, NULL, NULL, close);
	if (method != LWSHUMETH_GET && method != LWSHUMETH_PUT && method != LWSHUMETH_DELETE)
		return http_error(wsi, 405, "ERR_METHOD_NOT_ALLOWED", "method not allowed", NULL, 0, "allow:",
				  "GET, PUT, DELETE", close);
	if (!resource_id_ok(guid, guid_len))  /* lws already decoded %XX in the path */
		return http_error(wsi, 400, BAD, "guid must be 1 to 100 characters of [A-Za-z0-9_.@:-]", NULL, 0, NULL, NULL,
				  close);
	if (method == LWSHUMETH_PUT) {
		const char *problem;
		struct group *grp = parse_group_put(guid, guid_len, body, body_len, &problem);
		if (!grp)
			return http_error(wsi, 400, BAD, problem, NULL, 0, NULL, NULL, close);
		struct group *old = map_put(&g.groups, grp->guid.p, grp->guid.n, grp);
		if (old)
			group_free(old);
		return group_detail(wsi, grp);
	}
	struct group *grp = map_get(&g.groups, guid, guid_len);
	if (!grp)
		return http_error(wsi, 404, "ERR_GROUP_NOT_FOUND", "no group ", guid, guid_len, NULL, NULL, close);
	if (method == LWSHUMETH_GET)
		return group_detail(wsi, grp);
	group_free(map_del(&g.groups, guid, guid_len));
	return http_send(wsi, 204, NULL, NULL, NULL, close);
}

/* `Authorization: Bearer <admin key>`, compared in constant time. */
static bool http_authorized(struct lws *wsi)
{
	char header[4096];
	int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
	if (n < 7 || n >= (int)sizeof header || lws_hdr_copy(wsi, header, sizeof header, WSI_TOKEN_HTTP_AUTHORIZATION) != n ||
	    strncasecmp(header, "bearer", 6) || (header[6] != ' ' && header[6] != '\t'))
		return false;
	const char *p = header + 6, *end = header + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && strchr(" \t\r\n\v\f", end[-1]))
		end--;
	return (size_t)(end - p) == g.admin_key_len && CRYPTO_memcmp(p, g.admin_key, g.admin_key_len) == 0;
}

/* The request's Content-Length: -1 when absent, -2 when not a decimal number (lws 4.1 reads
 * "abc" as 0 and would take the body for the next request), MAX_BODY + 1 when far too big. */
static long long http_content_length(struct lws *wsi)
{
	char text[64];
	int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
	if (n <= 0)
		return -1;
	if (n >= (int)sizeof text || lws_hdr_copy(wsi, text, sizeof text, WSI_TOKEN_HTTP_CONTENT_LENGTH) != n ||
	    strspn(text, "0123456789") != (size_t)n)
		return -2;
	return n > 18 ? MAX_BODY + 1 : atoll(text);
}

static void http_req_free(struct http_req *r)
{
	free(r->path);
	free(r->body);
	free(r);
}

/* The end of a response: -1 closes the connection, else lws waits for the next request. */
static int http_done(struct lws *wsi, bool written, bool close)
{
	return !written || close || lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* LWS_CALLBACK_HTTP: answers at once, or keeps the request until its body arrived. */
static int http_request(struct lws *wsi)
{
	char *uri;
	int uri_len, method = lws_http_get_uri_and_method(wsi, &uri, &uri_len);
	long long length = http_content_length(wsi);
	if (method < 0)
		return -1;
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
		return http_done(wsi, http_error(wsi, 400, BAD, "send the body with Content-Length, not chunked", NULL, 0,
						 NULL, NULL, true), true);
	if (length == -2)
		return http_done(wsi, http_error(wsi, 400, BAD, "Content-Length must be a decimal number of bytes", NULL, 0,
						 NULL, NULL, true), true);
	if (length > MAX_BODY)
		return http_done(wsi, http_error(wsi, 413, "ERR_PAYLOAD_TOO_LARGE", "the body is over 65536 bytes", NULL, 0,
						 NULL, NULL, true), true);
	bool authorized = http_authorized(wsi);
	/* Without a length lws 4.1 expects 100 MB of body after POST, PUT and PATCH: answer as if
	 * the body were empty, then close. */
	bool unframed = length == -1 && (method == LWSHUMETH_POST || method == LWSHUMETH_PUT || method == LWSHUMETH_PATCH);
	/* lws delivers a body when there is a length, and an empty one for POST's explicit 0. */
	if (length > 0 || (length == 0 && method == LWSHUMETH_POST)) {
		struct http_req *r = xmalloc(sizeof *r);
		*r = (struct http_req){ KIND_HTTP, method, authorized, xmemdup(uri, (size_t)uri_len), (size_t)uri_len,
					xmalloc((size_t)length), 0, (size_t)length };
		lws_set_opaque_user_data(wsi, r);
		return 0;
	}
	return http_done(wsi, http_route(wsi, method, uri, (size_t)uri_len, authorized, NULL, 0, unframed), unframed);
}

static int http_body(struct http_req *r, const unsigned char *in, size_t len)
{
	if (len > r->body_cap - r->body_len)
		return -1;  /* lws delivers at most Content-Length bytes; anything else is a bug */
	if (len)
		memcpy(r->body + r->body_len, in, len);
	r->body_len += len;
	return 0;
}

static int http_body_done(struct lws *wsi, struct http_req *r)
{
	lws_set_opaque_user_data(wsi, NULL);
	bool written = http_route(wsi, r->method, r->path, r->path_len, r->authorized, r->body, r->body_len, false);
	http_req_free(r);
	return http_done(wsi, written, false);
}

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE (with the Upgrade header's value; lws 4.1 answers values
 * other than websocket and h2c itself): only WebSocket, only on /ws. After a refusal was
 * written, -1 closes the connection (lws flushes the response first). */
static int confirm_upgrade(struct lws *wsi, const char *upgrade)
{
	char uri[8];
	if (!upgrade || strcasecmp(upgrade, "websocket")) {
		http_error(wsi, 400, BAD, "only WebSocket upgrades are served", NULL, 0, NULL, NULL, true);
		return -1;
	}
	if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) != 3 || lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) != 3 ||
	    strcmp(uri, "/ws")) {
		http_error(wsi, 404, "ERR_NOT_FOUND", "no such path", NULL, 0, NULL, NULL, true);
		return -1;
	}
	return 0;
}

/* Frees whatever is attached to a wsi that goes away. */
static void release(struct lws *wsi)
{
	int *kind = lws_get_opaque_user_data(wsi);
	lws_set_opaque_user_data(wsi, NULL);
	if (kind && *kind == KIND_WS)
		ws_closed((struct conn *)kind);
	else if (kind)
		http_req_free((struct http_req *)kind);
}

/* ------------------------------------------------------------------ wiring */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	int *kind = lws_get_opaque_user_data(wsi);
	struct conn *c = kind && *kind == KIND_WS ? (struct conn *)kind : NULL;
	struct http_req *r = kind && *kind == KIND_HTTP ? (struct http_req *)kind : NULL;

	switch (reason) {
	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		return confirm_upgrade(wsi, in);
	case LWS_CALLBACK_ESTABLISHED:
		release(wsi);
		return ws_open(wsi);
	case LWS_CALLBACK_RECEIVE:
		return c ? ws_receive(c, in, len) : -1;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return c ? conn_writeable(c) : 0;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		if (c) {  /* lws answers the close; nothing more goes out */
			c->closing = true;
			c->close_code = 0;
			queue_clear(c);
		}
		return 0;
	case LWS_CALLBACK_HTTP:
		release(wsi);
		return http_request(wsi);
	case LWS_CALLBACK_HTTP_BODY:
		return r ? http_body(r, in, len) : 0;
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		return r ? http_body_done(wsi, r) : 0;
	case LWS_CALLBACK_CLOSED:
	case LWS_CALLBACK_CLOSED_HTTP:
	case LWS_CALLBACK_WSI_DESTROY:
		release(wsi);
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static void usage(const char *message)
{
	fprintf(stderr, "lws-c: %s\nusage: lws-c --host H --port P --jwt-secret S --admin-key K\n", message);
	exit(2);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1", *port_text = "8080";
	for (int i = 1; i < argc; i += 2) {
		const char **slot = !strcmp(argv[i], "--host") ? &host : !strcmp(argv[i], "--port") ? &port_text :
				    !strcmp(argv[i], "--jwt-secret") ? &g.secret : !strcmp(argv[i], "--admin-key") ? &g.admin_key :
				    NULL;
		if (!slot || i + 1 >= argc)
			usage("unknown option or missing value");
		*slot = argv[i + 1];
	}
	char *port_end;
	errno = 0;
	long port = strtol(port_text, &port_end, 10);
	if (!*port_text || *port_end || errno || port < 0 || port > 65535)
		usage("--port must be 0..65535");
	if (!g.secret || !*g.secret || !g.admin_key || !*g.admin_key)
		usage("--jwt-secret and --admin-key are required");
	g.secret_len = strlen(g.secret);
	g.admin_key_len = strlen(g.admin_key);
	if (RAND_bytes((unsigned char *)&hash_seed, sizeof hash_seed) != 1)
		usage("cannot seed the hash tables (RAND_bytes failed)");
	uint64_t epoch;
	if (RAND_bytes((unsigned char *)&epoch, sizeof epoch) != 1)
		usage("cannot draw the epoch (RAND_bytes failed)");
	snprintf(g.epoch, sizeof g.epoch, "%016llx", (unsigned long long)epoch);

	/* lws sizes its fd tables from the soft limit: raise it to the hard one (bounded). */
	struct rlimit files;
	if (!getrlimit(RLIMIT_NOFILE, &files) && files.rlim_cur < files.rlim_max) {
		files.rlim_cur = files.rlim_max > 1048576 ? 1048576 : files.rlim_max;
		setrlimit(RLIMIT_NOFILE, &files);
	}
	signal(SIGPIPE, SIG_IGN);
	lws_set_log_level(LLL_ERR, NULL);

	/* Our own libev loop, "foreign" to lws (as CallGate's): per-socket and per-call timers are
	 * ev_timers in libev's heap, not lws 4.1's sorted timer list, and the backend is epoll. */
	g.loop = ev_loop_new(EVFLAG_AUTO);
	if (!g.loop)
		usage("cannot create the libev loop");
	static const struct lws_protocols protocols[] = {
		{ .name = "callgate.v1", .callback = callback, .rx_buffer_size = RX_BUFFER, .tx_packet_size = TX_PACKET },
		{ 0 },
	};
	/* No lws validity pings (liveness is TCP keepalive, as node-ws's): lws 4.1 would keep one
	 * timer per socket in a sorted list that every connect walks. */
	static const lws_retry_bo_t no_pings = { 0 };
	void *loops[] = { g.loop };
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = (int)port;
	info.iface = host;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_LIBEV | (strchr(host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
	info.foreign_loops = loops;
	info.gid = -1;
	info.uid = -1;
	info.timeout_secs = 10;
	info.retry_and_idle_policy = &no_pings;
	info.ka_time = 30;  /* dead peers: TCP keepalive, 30 s idle, every 10 s, 3 probes */
	info.ka_interval = 10;
	info.ka_probes = 3;
	g.lws = lws_create_context(&info);
	if (!g.lws) {
		fprintf(stderr, "lws-c: cannot listen on %s:%ld\n", host, port);
		ev_loop_destroy(g.loop);
		return 1;
	}

	ev_signal sigint, sigterm;
	ev_timer sweep;
	ev_signal_init(&sigint, on_signal, SIGINT);
	ev_signal_init(&sigterm, on_signal, SIGTERM);
	ev_timer_init(&sweep, sweep_finished, 60., 60.);
	ev_signal_start(g.loop, &sigint);
	ev_signal_start(g.loop, &sigterm);
	ev_timer_start(g.loop, &sweep);
	printf("listening on %s:%d\n", host, lws_get_vhost_listen_port(lws_get_vhost_by_name(g.lws, "default")));
	fflush(stdout);

	ev_run(g.loop, 0);

	/* SIGINT or SIGTERM: stop our watchers (the loop runs again only until lws is done), close
	 * every socket, then free everything (valgrind-clean). */
	ev_signal_stop(g.loop, &sigint);
	ev_signal_stop(g.loop, &sigterm);
	ev_timer_stop(g.loop, &sweep);
	MAP_EACH(&g.calls, node)
		ev_timer_stop(g.loop, &((struct call *)node->value)->ring);
	lws_context_destroy(g.lws);
	ev_run(g.loop, 0);
	MAP_EACH(&g.calls, node)  /* the sockets are gone: only callers of ringing calls are left */
		call_free(node->value);
	MAP_EACH(&g.users, node) {
		struct user *u = node->value;
		free(u->uid);
		free(u);
	}
	MAP_EACH(&g.groups, node)
		group_free(node->value);
	for (struct finished *done = g.finished_head, *next; done; done = next) {
		next = done->next;
		free(done);
	}
	map_clear(&g.calls);
	map_clear(&g.users);
	map_clear(&g.groups);
	map_clear(&g.finished);
	ev_loop_destroy(g.loop);
	return 0;
}

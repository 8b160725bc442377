/**
 * CallGate's JavaScript client: protocol v1 over one WebSocket, and the call log over HTTP.
 *
 * One file, no dependencies, an ES module, for browsers and Node (18+: pass a WebSocket class,
 * such as the `ws` package's, as `WebSocket`). Its types are callgate.d.ts and protocol.d.ts
 * (generated from the gateway's proto/, where every frame it sends and expects is described);
 * the package is this folder (Sources/callgate-js, see its README), and the gateway serves this file to
 * its web demo as /callgate.js.
 *
 *   import { CallGateClient } from "./callgate.js";
 *   const client = new CallGateClient({ url: "ws://127.0.0.1:8080/ws", token });
 *   client.addEventListener("onIncomingCallReceived", (e) => console.log(e.detail.call));
 *   const me = await client.connect();          // the `connect` result: user, activeCalls, ...
 *   const call = await client.initiateCall({ receiverId: "bob", receiverType: "user", callType: "audio" });
 *
 * Events: every server push is dispatched as a `CustomEvent` named after the push
 * (`onIncomingCallReceived`, `onOutgoingCallAccepted`, `onUserJoined`, ...) with the push's
 * `data` as `detail`, once: a push whose `seq` this client saw already is dropped. The client
 * also dispatches `open` (after each successful `connect`, detail: the connect result), `close`
 * (detail: `{code, reason, willReconnect}`), `reconnecting` (detail: `{attempt, delayMs}`),
 * `recovered` (after each `connect` that sent `recover`, see Recovery) and, with `fetchToken`,
 * `refreshFailed` (detail: `{code, message}`) when an automatic token refresh did not succeed.
 *
 * Requests return promises that resolve with the reply's `result`, or reject with a
 * `CallGateError` carrying the reply's `code` (e.g. `ERR_CALL_CANCELLED`) and `message`. A request
 * that gets no reply within `requestTimeoutMs` (or whose socket closes first) rejects with code
 * `ERR_TIMEOUT` or `ERR_DISCONNECTED` (client-side codes; the gateway never sends them).
 *
 * Reconnects: when the socket drops unexpectedly, the client reconnects with exponential backoff
 * (0.5 s doubling to 15 s, with jitter) and sends `connect` again. A close with 4001 (no valid
 * token) or 4003 (the token expired) does not reconnect: the app needs a new token. Nor does
 * 4009 (the user has too many devices connected) or 4010: the gateway closed this socket
 * because a newer connection of this device replaced it. A close with 1012 (the node drains or
 * stops for a deploy) whose reason is the reconnect hint `{"reconnectWithinMs": N}` reconnects
 * after a delay drawn at random between 0 and N ms instead, and the backoff starts over.
 * `close()` stops it.
 *
 * Recovery: every `connect` after the first (automatic or not, until `close()`) sends
 * `recover: {epoch, seq, connectionId}`: where the last connection's push sequence stood, the
 * last push seen, and that connection's id. When the gateway still holds every push since
 * (`recovery.recovered`), the missed pushes follow the reply and are dispatched like any other,
 * in order, and the sessions the socket had joined carry on as if it never left
 * (`resumedSessions`). Otherwise the app rebuilds its screens from the connect result's
 * `activeCalls` (the `open` event's detail) and the resumed sessions as they stand now (their
 * participants, mutes and recording, in `resumedSessions`). Either way the client then joins again, with a fresh call token, each
 * session this client had joined (`joinSession`, not left since) that the gateway did not
 * resume and whose call is still in `activeCalls`; a meet session that was not resumed is not
 * joined again (it may have ended). Then it dispatches `recovered` with detail
 * `{recovered, missed, resumedSessions, rejoinedSessions, lostSessions}`: whether the missed
 * pushes follow, how many, the `session` of each one resumed and of each one joined again,
 * and the ids of the sessions this client is no longer in (the app leaves their call screens).
 *
 * Missed calls: `missedCalls` holds the newest `{unseen, revision}` this client knows of its user's
 * unseen missed calls (from the connect result's `unseenMissedCalls` and `missedCallsRevision`,
 * `onMissedCallsChanged` pushes and `markCallsSeen` answers); `onMissedCallsChanged` is
 * dispatched only when it is newer than that (counts from different gateway nodes may cross).
 *
 * Token lifetime: the gateway closes a socket with 4003 when its token expires (the connect
 * result's `tokenExpiresAt`). Call `refreshToken(newToken)` before then, or give the client a
 * `fetchToken` function and it does so itself, a minute before expiry (halfway, for tokens that
 * live less than two minutes); the newest token is also the one reconnects use.
 */

/** An error reply from the gateway, or a client-side failure of a request. */
export class CallGateError extends Error {
  /** @param {string} code  @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = "CallGateError";
    this.code = code;
  }
}

/** The subprotocol the gateway speaks. */
export const SUBPROTOCOL = "callgate.v1";

/**
 * The class events are dispatched as: `CustomEvent` where there is one (browsers, Node 19+), else
 * an `Event` with the same `detail` (Node 18).
 */
const DetailEvent = globalThis.CustomEvent ?? class extends Event {
  /** @param {string} type  @param {{detail?: unknown}} [init] */
  constructor(type, init) {
    super(type);
    this.detail = init?.detail ?? null;
  }
};

/**
 * Close codes after which reconnecting cannot help: 4001 and 4003 need a new token; 4009 says the
 * user has as many devices connected as the gateway allows (a reconnect would only be refused
 * again); 4010 closes a socket a newer connection of this device replaced.
 */
const FINAL_CLOSE_CODES = new Set([4001, 4003, 4009, 4010]);

/** The close code of a draining or stopping node, whose reason may carry a reconnect hint. */
const SERVICE_RESTART = 1012;
/** The longest delay a reconnect hint may ask for, in milliseconds. */
const MAX_HINT_MS = 60000;

/**
 * The delay a 1012 close's reason asks for (`{"reconnectWithinMs": N}`, N a whole number from 0
 * to 60000), or null when the reason is not such a hint.
 * @param {string} reason
 * @returns {number | null}
 */
export function reconnectHint(reason) {
  let parsed;
  try {
    parsed = JSON.parse(reason);
  } catch {
    return null;
  }
  const ms = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed.reconnectWithinMs : undefined;
  return Number.isInteger(ms) && ms >= 0 && ms <= MAX_HINT_MS ? ms : null;
}

export class CallGateClient extends EventTarget {
  /**
   * @param {object} options
   * @param {string} options.url            ws:// or wss:// URL of the gateway's `/ws`
   * @param {string} options.token          the user's connection token (HS256 JWT)
   * @param {boolean} [options.reconnect]   reconnect after unexpected closes (default true)
   * @param {number} [options.requestTimeoutMs]  default 10000
   * @param {() => Promise<string>} [options.fetchToken]  returns a fresh connection token for
   *   the same user; when given, the client refreshes its token before the gateway closes the
   *   socket (4003)
   * @param {typeof WebSocket} [options.WebSocket]  the WebSocket class (default the global one;
   *   in Node before 22, the `ws` package's)
   */
  constructor({ url, token, reconnect = true, requestTimeoutMs = 10000, fetchToken = null, WebSocket = globalThis.WebSocket }) {
    super();
    if (typeof WebSocket !== "function") {
      throw new TypeError("no WebSocket class: pass one as options.WebSocket (in Node, the ws package's)");
    }
    this._WebSocket = WebSocket;
    this.url = url;
    this.token = token;
    this.fetchToken = fetchToken;
    this._refreshTimer = null;
    this._clockOffsetMs = 0;
    this.reconnect = reconnect;
    this.requestTimeoutMs = requestTimeoutMs;
    /** The `connect` result of the current connection, or null. */
    this.session = null;
    this._socket = null;
    this._nextId = 1;
    this._pending = new Map();
    this._closedByUser = false;
    this._attempt = 0;
    this._retryTimer = null;
    /** The last connection's `{epoch, seq, connectionId}`, sent as `recover`; null until the first connect. */
    this._position = null;
    /** While missed pushes are replayed: how many are still to come, and the seq to resume from after them. */
    this._replay = null;
    /** The sessions this client joined and has not left: sessionId -> the `idleTimeout` it joined with. */
    this._joined = new Map();
    /** The newest `{unseen, revision}` of the user's unseen missed calls; null until known. */
    this.missedCalls = null;
  }

  /** Whether the socket is open and `connect` succeeded. */
  get isConnected() {
    return this.session !== null;
  }

  /**
   * Opens the socket and authenticates, recovering what the last connection missed when there
   * was one (see Recovery above). Resolves with the `connect` result (`{user, connectionId,
   * serverTime, activeCalls, tokenExpiresAt, epoch, seq, resumedSessions, recovery?}`); rejects
   * with the gateway's error (e.g. `AUTH_ERR`) or `ERR_DISCONNECTED` when the socket cannot open.
   */
  connect() {
    this._closedByUser = false;
    clearTimeout(this._retryTimer);
    return new Promise((resolve, reject) => {
      let socket;
      try {
        socket = new this._WebSocket(this.url, SUBPROTOCOL);
      } catch (error) {
        reject(new CallGateError("ERR_DISCONNECTED", String(error)));
        return;
      }
      this._socket = socket;
      let opened = false;
      socket.onopen = () => {
        opened = true;
        const recover = this._position;
        const data = recover ? { token: this.token, recover: { ...recover } } : { token: this.token };
        this._request("connect", data).then((result) => {
          this._attempt = 0;
          this.session = result;
          this._clockOffsetMs = result.serverTime - Date.now();
          if (result.unseenMissedCalls != null) {
            this._noteMissedCalls({ unseen: result.unseenMissedCalls, revision: result.missedCallsRevision });
          }
          this._follow(result);
          this._scheduleRefresh();
          this._emit("open", result);
          resolve(result);
          if (recover) this._recoverSessions(result);
        }, reject);
      };
      socket.onmessage = (message) => this._receive(message.data);
      socket.onclose = (event) => {
        this._socketClosed(socket, event);
        if (!opened) reject(new CallGateError("ERR_DISCONNECTED", `cannot reach ${this.url}`));
      };
    });
  }

  /**
   * Closes the socket for good (1000); pending requests reject with ERR_DISCONNECTED. A later
   * `connect()` starts afresh: it recovers nothing and joins nothing again.
   */
  close() {
    this._closedByUser = true;
    clearTimeout(this._retryTimer);
    clearTimeout(this._refreshTimer);
    this._position = null;
    this._replay = null;
    this._joined.clear();
    if (this._socket) this._socket.close(1000, "bye");
  }

  // ---- ringing (the ops of proto/websocket.md and the rules of proto/ringing.md) ----

  /** Rings a user or a group: `{receiverId, receiverType: "user"|"group", callType: "audio"|"video", timeout?, metadata?}`. Resolves with the `initiated` Call. */
  initiateCall(params) { return this._request("initiateCall", params); }
  /** Answers a ringing call on this device; resolves with the `ongoing` Call. */
  acceptCall(sessionId) { return this._request("acceptCall", { sessionId }); }
  /** The gateway's clock now, Unix milliseconds: this device's clock corrected by the offset the last connect measured. */
  serverNow() { return Date.now() + this._clockOffsetMs; }
  /** Tells the caller this device shows the ringing call (their `onOutgoingCallRinging` counts it); send it when the ring is shown. */
  confirmRinging(sessionId) { return this._request("confirmRinging", { sessionId }); }
  /** Declines (`"rejected"`, `"busy"`) an incoming call, or cancels (`"cancelled"`) one's own ringing call. */
  rejectCall(sessionId, status) { return this._leaving("rejectCall", { sessionId, status }); }
  /** Hangs up. */
  endCall(sessionId) { return this._leaving("endCall", { sessionId }); }
  /** Round trip to the gateway. */
  ping() { return this._request("ping", {}); }
  /**
   * Marks the user's missed calls seen on every device: all of them, or those up to the call
   * `sessionId` of the call log. Resolves with `{unseen, revision}` after the change (also kept
   * in `missedCalls`); every device hears it in `onMissedCallsChanged` when it changed.
   */
  async markCallsSeen(sessionId) {
    const result = await this._request("markCallsSeen", sessionId ? { sessionId } : {});
    this._noteMissedCalls(result);
    return result;
  }
  /**
   * Extends this socket's life with a newer token for the same user; resolves with
   * `{tokenExpiresAt}` and makes `token` the one reconnects use. Rejects with `AUTH_ERR` for a
   * bad token or one for another user (the socket keeps its current token).
   */
  async refreshToken(token) {
    const result = await this._request("refreshToken", { token });
    this.token = token;
    if (this.session) this.session.tokenExpiresAt = result.tokenExpiresAt;
    this._scheduleRefresh();
    return result;
  }

  // ---- call sessions ----

  /** A call token for `sessionId`, to join its session: `{callToken, sessionId, expiresAt}`. */
  generateToken(sessionId) { return this._request("generateToken", { sessionId }); }
  /**
   * Joins the session a call token names; resolves with `{session}` (participants so far). The
   * client joins it again by itself after a reconnect the gateway could not resume it from.
   */
  async joinSession(callToken, idleTimeout) {
    const data = { callToken };
    if (idleTimeout !== undefined) data.idleTimeout = idleTimeout;
    const result = await this._request("joinSession", data);
    this._joined.set(result.session.sessionId, idleTimeout);
    return result;
  }
  /** Leaves a session (in a 1:1 call this hangs up for both). */
  leaveSession(sessionId) { return this._leaving("leaveSession", { sessionId }); }
  /** Sets this user's audio and/or video mute state: `{audioMuted?, videoMuted?}`. */
  setMuted(sessionId, state) { return this._request("setMuted", { sessionId, ...state }); }
  startRecording(sessionId) { return this._request("startRecording", { sessionId }); }
  stopRecording(sessionId) { return this._request("stopRecording", { sessionId }); }
  switchToVideo(sessionId) { return this._request("switchToVideo", { sessionId }); }
  /**
   * Rings `receiverIds` into the answered call `sessionId` (they get `onIncomingCallReceived`
   * with `invitedBy`); resolves with `{call, rung, busy}`.
   */
  inviteToCall(sessionId, receiverIds) { return this._request("inviteToCall", { sessionId, receiverIds }); }
  /** Puts the call on hold on this user's side; the others get `onCallHeld`. */
  holdCall(sessionId) { return this._request("holdCall", { sessionId }); }
  /** Takes the call off hold; the others get `onCallResumed`. */
  resumeCall(sessionId) { return this._request("resumeCall", { sessionId }); }
  /**
   * Sends an app-defined event (`type` such as "raiseHand" or "reaction", optional JSON `data`)
   * to the session's other devices as `onSessionEvent`; resolves with `{sessionId, type,
   * participants}`. Never stored; 50 per user per 10 s.
   */
  sendSessionEvent(sessionId, type, data) {
    return this._request("sendSessionEvent", data === undefined ? { sessionId, type } : { sessionId, type, data });
  }
  /** The session's host mutes participant `uid` (`ERR_NOT_HOST` for anyone else). */
  muteParticipant(sessionId, uid) { return this._request("muteParticipant", { sessionId, uid }); }
  /** The session's host removes participant `uid`; their devices get `onRemovedFromCall`. */
  removeParticipant(sessionId, uid) { return this._request("removeParticipant", { sessionId, uid }); }

  // ---- call logs over HTTP (GET /v3.0/calls) ----

  /**
   * One page of this user's call log, newest first. `query` takes the parameters of
   * `GET /v3.0/calls` (`page`, `perPage`, `cursor`, `mode`, `type`, `status`, `direction`,
   * `hasRecording`, `uid`, `guid`); resolves with `{data, meta}`.
   */
  callLogs(query = {}) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
    }
    const suffix = params.toString() ? `?${params}` : "";
    return this._http(`/v3.0/calls${suffix}`);
  }

  /** Every call under `sessionId` this user was part of, newest first: `{data: [CallLog]}`. */
  callLog(sessionId) {
    return this._http(`/v3.0/calls/${encodeURIComponent(sessionId)}`);
  }

  /**
   * What happened in each call under `sessionId` this user was part of, step by step (Unix ms),
   * with the webhook attempts about it: `{data: [{sessionId, callCategory, callStatus,
   * initiatedAt, steps: [{at, step, ...}], omittedSteps}]}`, newest call first.
   */
  timeline(sessionId) {
    return this._http(`/v3.0/calls/${encodeURIComponent(sessionId)}/timeline`);
  }

  /**
   * Development only: asks a gateway that runs with a generated secret for a token for `uid`
   * (`POST /dev/token`); resolves with `{token, expiresAt}`. Gateways with a configured secret
   * answer 404: there, tokens come from your own backend.
   */
  static async devToken(baseURL, uid, name) {
    const body = name ? { uid, name } : { uid };
    const response = await fetch(new URL("/dev/token", baseURL), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return CallGateClient._json(response);
  }

  // ---- internals ----

  _request(op, data) {
    const socket = this._socket;
    if (!socket || socket.readyState !== this._WebSocket.OPEN) {
      return Promise.reject(new CallGateError("ERR_DISCONNECTED", "not connected"));
    }
    const id = String(this._nextId++);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        reject(new CallGateError("ERR_TIMEOUT", `${op}: no reply in ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      this._pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ id, op, data }));
    });
  }

  _receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof frame.event === "string") {
      if (!this._isNew(frame.seq)) return;
      const over = frame.event === "onCallEnded" || frame.event === "onRemovedFromCall";
      if (over && frame.data) this._joined.delete(frame.data.sessionId);
      if (frame.event === "onMissedCallsChanged" && !this._noteMissedCalls(frame.data)) return;
      this._emit(frame.event, frame.data);
      return;
    }
    const pending = frame.id != null ? this._pending.get(String(frame.id)) : undefined;
    if (!pending) return;
    this._pending.delete(String(frame.id));
    clearTimeout(pending.timer);
    if (frame.error) {
      pending.reject(new CallGateError(frame.error.code, frame.error.message));
    } else {
      pending.resolve(frame.result);
    }
  }

  /** Keeps `count` as `missedCalls` when it is newer than the one held; says whether it was. */
  _noteMissedCalls(count) {
    if (!count || (this.missedCalls && this.missedCalls.revision >= count.revision)) return false;
    this.missedCalls = { unseen: count.unseen, revision: count.revision };
    return true;
  }

  _socketClosed(socket, event) {
    if (socket !== this._socket) return;
    this._socket = null;
    this.session = null;
    clearTimeout(this._refreshTimer);
    for (const [, pending] of this._pending) {
      clearTimeout(pending.timer);
      pending.reject(new CallGateError("ERR_DISCONNECTED", `socket closed (${event.code})`));
    }
    this._pending.clear();
    const willReconnect = this.reconnect && !this._closedByUser && !FINAL_CLOSE_CODES.has(event.code);
    this._emit("close", { code: event.code, reason: event.reason, willReconnect });
    if (willReconnect) {
      this._scheduleReconnect(event.code === SERVICE_RESTART ? reconnectHint(event.reason) : null);
    }
  }

  /**
   * An op that takes this client out of the session `data.sessionId`: the client will not join
   * it again after a reconnect, even when the op failed (a leave lost with the socket included).
   */
  async _leaving(op, data) {
    try {
      return await this._request(op, data);
    } finally {
      this._joined.delete(data.sessionId);
    }
  }

  /**
   * Takes up the push sequence from a connect result: from its `seq`, or, when missed pushes
   * follow it, from the last push seen until they are all in.
   */
  _follow(result) {
    const recovery = result.recovery;
    if (recovery && recovery.recovered && recovery.missed > 0) {
      this._position = { epoch: result.epoch, seq: this._position.seq, connectionId: result.connectionId };
      this._replay = { left: recovery.missed, resumeAt: result.seq };
    } else {
      this._position = { epoch: result.epoch, seq: result.seq, connectionId: result.connectionId };
      this._replay = null;
    }
  }

  /**
   * Whether the push numbered `seq` is one this client has not seen yet; moves the position
   * past it. After the last missed push, the position moves to the connect result's `seq`: the
   * pushes in between were not for this device (its previous connection had the replies).
   */
  _isNew(seq) {
    if (!Number.isInteger(seq) || !this._position) return true;
    if (seq <= this._position.seq) return false;
    this._position.seq = seq;
    if (this._replay && --this._replay.left === 0) {
      this._position.seq = Math.max(seq, this._replay.resumeAt);
      this._replay = null;
    }
    return true;
  }

  /**
   * After a connect that sent `recover`: joins again the sessions the gateway did not resume
   * whose call is still live, forgets the others, then dispatches `recovered`. When the socket
   * drops meanwhile, the next connect does it instead.
   */
  async _recoverSessions(result) {
    const recovery = result.recovery || { recovered: false, missed: 0 };
    const resumedSessions = result.resumedSessions || [];
    const resumedIds = resumedSessions.map((session) => session.sessionId);
    const live = new Set(result.activeCalls.map((call) => call.sessionId));
    const rejoinedSessions = [];
    const lostSessions = [];
    for (const sessionId of resumedIds) {
      if (!this._joined.has(sessionId)) this._joined.set(sessionId, undefined);
    }
    for (const [sessionId, idleTimeout] of [...this._joined]) {
      if (resumedIds.includes(sessionId)) continue;
      this._joined.delete(sessionId);
      if (!live.has(sessionId)) {
        lostSessions.push(sessionId);
        continue;
      }
      try {
        const { callToken } = await this.generateToken(sessionId);
        rejoinedSessions.push((await this.joinSession(callToken, idleTimeout)).session);
      } catch (error) {
        if (error.code === "ERR_DISCONNECTED") {
          this._joined.set(sessionId, idleTimeout);
          return;
        }
        lostSessions.push(sessionId);
      }
    }
    this._emit("recovered", {
      recovered: recovery.recovered, missed: recovery.missed, resumedSessions, rejoinedSessions, lostSessions,
    });
  }

  /** With `fetchToken`, arms the refresh of the current token ahead of its `tokenExpiresAt`. */
  _scheduleRefresh() {
    clearTimeout(this._refreshTimer);
    if (!this.fetchToken || !this.session) return;
    const remainingMs = this.session.tokenExpiresAt * 1000 - (Date.now() + this._clockOffsetMs);
    const delayMs = Math.max(0, remainingMs >= 120000 ? remainingMs - 60000 : remainingMs / 2);
    this._refreshTimer = setTimeout(async () => {
      try {
        await this.refreshToken(await this.fetchToken());
      } catch (error) {
        this._emit("refreshFailed", { code: error.code, message: error.message });
      }
    }, delayMs);
  }

  /** @param {number | null} [hintMs] a draining node's reconnect hint: reconnect within it */
  _scheduleReconnect(hintMs = null) {
    if (hintMs !== null) this._attempt = 0;
    this._attempt += 1;
    const base = Math.min(15000, 500 * 2 ** (this._attempt - 1));
    const delayMs = hintMs !== null ? Math.floor(Math.random() * (hintMs + 1)) : Math.round(base * (0.75 + Math.random() * 0.5));
    this._emit("reconnecting", { attempt: this._attempt, delayMs });
    this._retryTimer = setTimeout(() => {
      this.connect().catch(() => {
        // the socket's close handler schedules the next attempt
      });
    }, delayMs);
  }

  async _http(path) {
    const base = this.url.replace(/^ws/, "http");
    const response = await fetch(new URL(path, base), { headers: { authorization: `Bearer ${this.token}` } });
    return CallGateClient._json(response);
  }

  static async _json(response) {
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const error = body && body.error ? body.error : { code: `HTTP_${response.status}`, message: response.statusText };
      throw new CallGateError(error.code, error.message);
    }
    return body;
  }

  _emit(name, detail) {
    this.dispatchEvent(new DetailEvent(name, { detail }));
  }
}

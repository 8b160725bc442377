#!/usr/bin/env node
// Reference broadcast server for tools/bench on Node's `ws` (Debian's node-ws, not npm).
//
// It speaks the subset of CallGate protocol v1 that the bench's `group` scenario uses, so the
// same generator can drive it: WS path /ws, subprotocol callgate.v1, `connect` with an HS256
// JWT (verified for real), `ping`, `initiateCall` to a group, the caller's cancel (`rejectCall`
// with status `cancelled`, or `endCall` while ringing), the ring timeout, and the admin API's
// group routes (PUT/GET/DELETE /v1/groups/{guid}, Authorization: Bearer <admin key>) plus
// GET /healthz. Frames follow proto/schemas. Anything else gets ERR_BAD_REQUEST saying so.
//
// usage: node server.js --host H --port P --jwt-secret S --admin-key K   (port 0: any free port)
// prints `listening on HOST:PORT` once it accepts connections.
'use strict';

const crypto = require('crypto');
const http = require('http');
const WebSocket = require(process.env.NODE_WS_DIR || '/usr/share/nodejs/ws');

// ------------------------------------------------------------------ options

function parseArgs(argv) {
  const opts = { host: '127.0.0.1', port: 8080, jwtSecret: null, adminKey: null };
  const names = { '--host': 'host', '--port': 'port', '--jwt-secret': 'jwtSecret', '--admin-key': 'adminKey' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = names[argv[i]];
    if (!key || i + 1 >= argv.length) usage(`unknown option or missing value: ${argv[i]}`);
    opts[key] = argv[i + 1];
  }
  opts.port = Number(opts.port);
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) usage('--port must be 0..65535');
  if (!opts.jwtSecret || !opts.adminKey) usage('--jwt-secret and --admin-key are required');
  return opts;
}

function usage(message) {
  process.stderr.write(`server.js: ${message}\nusage: server.js --host H --port P --jwt-secret S --admin-key K\n`);
  process.exit(2);
}

const opts = parseArgs(process.argv.slice(2));
const secret = Buffer.from(opts.jwtSecret, 'utf8');
const adminKey = Buffer.from(opts.adminKey, 'utf8');

// ------------------------------------------------------------------ limits and patterns (proto/README.md)

const MAX_MESSAGE = 64 * 1024;          // incoming WS message; more closes with 1009
const MAX_BODY = 65536;                  // admin HTTP body; more is 413
const CONNECT_DEADLINE_MS = 10000;       // no connect by then: close 4001
const FINISHED_TTL_MS = 300000;          // finished calls answer precise errors this long
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const RESOURCE_ID = /^[A-Za-z0-9_.@:-]{1,100}$/;
const B64URL = /^[A-Za-z0-9_-]*$/;
const NOT_HERE = new Set(['acceptCall', 'generateToken', 'joinSession', 'leaveSession', 'setMuted',
  'startRecording', 'stopRecording', 'switchToVideo']);

// ------------------------------------------------------------------ state (single-threaded)

const groups = new Map();      // guid -> {guid, name, icon?, members: [uid], memberSet}
const devices = new Map();     // uid -> Set<WebSocket> of connected devices
const calls = new Map();       // sessionId -> {call, rung: [uid], timer}
const outgoing = new Map();    // caller uid -> sessionId of the call they are ringing
const finished = new Map();    // sessionId -> {status, at (ms)} of calls that ended
const seqs = new Map();        // uid -> their last push's number (their push sequence)
const EPOCH = crypto.randomBytes(8).toString('hex');  // every sequence's epoch: one per process
let nextConnection = 0;

const nowSeconds = () => Math.floor(Date.now() / 1000);

// CallGate's callUUID namespace (proto/ringing.md, A push-ready call).
const UUID_NAMESPACE = Buffer.from('6f1c2a5e930b4d71a8442e0d5bc3971f', 'hex');

// The lowercase RFC 4122 version 5 UUID of a session id, as CallGate derives `callUUID`.
function callUUID(sessionId) {
  const bytes = crypto.createHash('sha1').update(UUID_NAMESPACE).update(sessionId, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ------------------------------------------------------------------ frames

class ProtocolError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}
const bad = (message) => new ProtocolError('ERR_BAD_REQUEST', message);

function errorFrame(id, code, message) {
  const frame = id === undefined ? { error: { code, message } } : { id, error: { code, message } };
  return JSON.stringify(frame);
}

// Sends one push to every connected device of the given uids: the frame's head is serialized
// once per fan-out, then numbered per user with their next seq.
function fanOut(uids, event, data) {
  const head = JSON.stringify({ event, data }).slice(0, -1);
  for (const uid of uids) {
    const set = devices.get(uid);
    if (!set || set.size === 0) continue;
    const seq = (seqs.get(uid) || 0) + 1;
    seqs.set(uid, seq);
    const bytes = Buffer.from(`${head},"seq":${seq}}`);
    for (const ws of set) ws.send(bytes, { binary: false });
  }
}

// ------------------------------------------------------------------ JWT (HS256 only)

function b64urlJSON(part) {
  if (!B64URL.test(part)) return null;
  try { return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')); } catch { return null; }
}

// {user, exp} of a valid connection token, or null (malformed, not HS256, bad signature,
// expired, no sub, or a call token, which carries `typ`).
function verifyToken(token) {
  const parts = token.split('.');
  if (parts.length !== 3 || !B64URL.test(parts[2])) return null;
  const header = b64urlJSON(parts[0]);
  if (!header || header.alg !== 'HS256') return null;
  const expected = crypto.createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const claims = b64urlJSON(parts[1]);
  if (!claims || typeof claims !== 'object' || Array.isArray(claims)) return null;
  if (typeof claims.sub !== 'string' || claims.sub === '') return null;
  if (typeof claims.exp !== 'number' || claims.exp <= Date.now() / 1000) return null;
  if (claims.typ !== undefined) return null;
  const user = { uid: claims.sub, name: typeof claims.name === 'string' ? claims.name : claims.sub };
  if (typeof claims.avatar === 'string') user.avatar = claims.avatar;
  return { user, exp: Math.floor(claims.exp) };
}

// ------------------------------------------------------------------ request decoding

// Returns {id, op, data} or throws ProtocolError; `id` is undefined when none could be read.
function decode(text) {
  let frame;
  try { frame = JSON.parse(text); } catch { throw bad('the frame is not JSON'); }
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) throw bad('the frame is not a JSON object');
  const id = frame.id;
  if (typeof id !== 'string' || id.length < 1 || id.length > 64) throw bad('id must be a string of 1 to 64 characters');
  try {
    if (typeof frame.op !== 'string') throw bad('op must be a string');
    const op = frame.op;
    if (op !== 'connect' && op !== 'ping' && op !== 'initiateCall' && op !== 'rejectCall' && op !== 'endCall') {
      throw bad(NOT_HERE.has(op) ? `op ${op} is not implemented by this reference peer` : `unknown op: ${op}`);
    }
    let data = frame.data;
    if (data === undefined || data === null) data = {};
    if (typeof data !== 'object' || Array.isArray(data)) throw bad('data must be an object');
    return { id, op, data };
  } catch (e) { e.id = id; throw e; }
}

const present = (v) => v !== undefined && v !== null;

function requireString(data, field) {
  if (typeof data[field] !== 'string') throw bad(`data.${field} must be a string`);
  return data[field];
}

function requireSessionId(data) {
  const sessionId = requireString(data, 'sessionId');
  if (!SESSION_ID.test(sessionId)) throw new ProtocolError('ERR_INVALID_SESSION_ID', 'sessionId is not 1..128 characters of [A-Za-z0-9._:-]');
  return sessionId;
}

// ------------------------------------------------------------------ ops

function opConnect(ws, data) {
  const token = requireString(data, 'token');
  if (ws.connectSent) throw bad('this socket already sent connect');
  ws.connectSent = true;
  const verified = verifyToken(token);
  if (!verified) {
    ws.authFailed = true;
    throw new ProtocolError('AUTH_ERR', 'the token is malformed, wrongly signed or expired');
  }
  const { user, exp } = verified;
  clearTimeout(ws.deadline);
  // The socket lives as long as its token (close 4003); setTimeout takes at most 2^31-1 ms.
  const lifetimeMs = exp * 1000 - Date.now();
  if (lifetimeMs < 2 ** 31) ws.deadline = setTimeout(() => ws.close(4003, 'token expired'), lifetimeMs);
  ws.user = user;
  let set = devices.get(user.uid);
  if (!set) devices.set(user.uid, (set = new Set()));
  set.add(ws);
  const activeCalls = [];
  for (const entry of calls.values()) {
    if (entry.call.initiator.uid === user.uid || entry.rungSet.has(user.uid)) activeCalls.push(entry.call);
  }
  return {
    user, connectionId: ws.connectionId, serverTime: Date.now(), activeCalls, tokenExpiresAt: exp,
    epoch: EPOCH, seq: seqs.get(user.uid) || 0, resumedSessions: [],
  };
}

// Types were checked by checkInitiateFields before the login check; here come the ranges.
function opInitiateCall(ws, data) {
  const { receiverId, receiverType, callType } = data;
  const timeout = present(data.timeout) ? data.timeout : 45;
  const metadata = present(data.metadata) ? data.metadata : undefined;
  if (receiverId.length < 1 || receiverId.length > 100) throw bad('data.receiverId must be 1 to 100 characters');
  if (timeout < 1 || timeout > 300) throw bad('data.timeout must be 1 to 300');
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > 4096) throw bad('data.metadata is over 4096 bytes');
  if (receiverType === 'user') throw bad('this reference peer only rings groups (receiverType "group")');

  const caller = ws.user;
  if (outgoing.has(caller.uid)) throw new ProtocolError('ERROR_CALL_IN_PROGRESS', 'you are already ringing someone');
  const group = groups.get(receiverId);
  if (!group || !group.memberSet.has(caller.uid)) throw new ProtocolError('ERR_GROUP_NOT_FOUND', `no group ${receiverId} with you as a member`);
  const rung = group.members.filter((uid) => uid !== caller.uid);
  if (rung.length === 0) throw bad('the group has no member besides you');

  const receiver = { guid: group.guid, name: group.name };
  if (group.icon !== undefined) receiver.icon = group.icon;
  receiver.membersCount = group.members.length;
  const sessionId = 'c.' + crypto.randomBytes(18).toString('base64url');
  const call = {
    sessionId, callUUID: callUUID(sessionId),
    callType, receiverType, callCategory: 'call', callStatus: 'initiated',
    initiator: caller, receiver, initiatedAt: nowSeconds(), ringExpiresAt: Math.ceil((Date.now() + timeout * 1000) / 1000),
  };
  if (metadata !== undefined) call.metadata = metadata;
  const entry = { call, rung, rungSet: new Set(rung), timer: null };
  entry.timer = setTimeout(() => ringTimeout(call.sessionId), timeout * 1000);
  calls.set(call.sessionId, entry);
  outgoing.set(caller.uid, call.sessionId);
  return { result: call, after: () => fanOut(rung, 'onIncomingCallReceived', { call }) };
}

// Ends a ringing call with a terminal status; returns the ended call.
function finish(entry, status) {
  clearTimeout(entry.timer);
  calls.delete(entry.call.sessionId);
  outgoing.delete(entry.call.initiator.uid);
  const call = { ...entry.call, callStatus: status, endedAt: nowSeconds() };
  finished.set(call.sessionId, { status, at: Date.now() });
  return call;
}

function ringTimeout(sessionId) {
  const entry = calls.get(sessionId);
  if (!entry) return;
  const call = finish(entry, 'unanswered');
  fanOut([call.initiator.uid], 'onOutgoingCallRejected', { call });
  fanOut(entry.rung, 'onIncomingCallCanceled', { call, reason: 'unanswered' });
}

// The live call for a ringing op, or the precise error for a finished or unknown one.
function liveCall(sessionId) {
  const entry = calls.get(sessionId);
  if (entry) return entry;
  const done = finished.get(sessionId);
  if (done && Date.now() - done.at < FINISHED_TTL_MS) {
    const code = { cancelled: 'ERR_CALL_CANCELLED', rejected: 'ERR_CALL_REJECTED', busy: 'ERR_CALL_REJECTED' }[done.status] || 'ERR_CALL_ENDED';
    throw new ProtocolError(code, `the call is over (${done.status})`);
  }
  throw new ProtocolError('ERR_CALL_NOT_FOUND', 'no such call');
}

// The caller's cancel: rejectCall {status: "cancelled"} or endCall on a ringing call.
function cancel(ws, entry) {
  const call = finish(entry, 'cancelled');
  return { result: call, after: () => fanOut(entry.rung, 'onIncomingCallCanceled', { call, reason: 'cancelled' }) };
}

function opRejectCall(ws, data) {
  const sessionId = requireSessionId(data);
  const status = data.status;  // its value was checked before the login check
  const entry = liveCall(sessionId);
  const isCaller = entry.call.initiator.uid === ws.user.uid;
  if (status === 'cancelled') {
    if (!isCaller) throw new ProtocolError('ERR_NOT_PARTICIPANT', 'only the caller cancels');
    return cancel(ws, entry);
  }
  if (isCaller || !entry.rungSet.has(ws.user.uid)) throw new ProtocolError('ERR_NOT_PARTICIPANT', 'this call does not ring you');
  throw bad('declining is not implemented by this reference peer');
}

function opEndCall(ws, data) {
  const sessionId = requireSessionId(data);
  const entry = liveCall(sessionId);
  if (entry.call.initiator.uid !== ws.user.uid) throw new ProtocolError('ERR_NOT_PARTICIPANT', 'you are not a participant of this call');
  return cancel(ws, entry);  // every live call here is still ringing: the caller's endCall cancels it
}

// Handles one text message; replies on `ws`, then performs the op's pushes.
function handle(ws, text) {
  let request;
  try {
    request = decode(text);
  } catch (e) {
    ws.send(errorFrame(e.id, e.code, e.message));
    return;
  }
  const { id, op, data } = request;
  try {
    let outcome;
    if (op === 'connect') {
      outcome = { result: opConnect(ws, data) };
    } else {
      // Field checks come before the socket check (proto/README.md, "Which error wins").
      if (op === 'rejectCall' || op === 'endCall') requireString(data, 'sessionId');
      if (op === 'rejectCall' && !['rejected', 'busy', 'cancelled'].includes(data.status)) throw bad('data.status must be "rejected", "busy" or "cancelled"');
      if (op === 'initiateCall') checkInitiateFields(data);
      if (!ws.user) throw new ProtocolError('ERR_USER_NOT_LOGGED_IN', 'send connect first');
      if (op === 'ping') outcome = { result: { serverTime: Date.now() } };
      else if (op === 'initiateCall') outcome = opInitiateCall(ws, data);
      else if (op === 'rejectCall') outcome = opRejectCall(ws, data);
      else outcome = opEndCall(ws, data);
    }
    ws.send(JSON.stringify({ id, result: outcome.result }));
    if (outcome.after) outcome.after();
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    ws.send(errorFrame(id, e.code, e.message));
    if (ws.authFailed) ws.close(4001, 'unauthorized');
  }
}

// The type checks of initiateCall's fields, so that they win over ERR_USER_NOT_LOGGED_IN.
function checkInitiateFields(data) {
  requireString(data, 'receiverId');
  if (data.receiverType !== 'user' && data.receiverType !== 'group') throw bad('data.receiverType must be "user" or "group"');
  if (data.callType !== 'audio' && data.callType !== 'video') throw bad('data.callType must be "audio" or "video"');
  if (present(data.timeout) && !Number.isInteger(data.timeout)) throw bad('data.timeout must be an integer');
  if (present(data.metadata) && (typeof data.metadata !== 'object' || Array.isArray(data.metadata))) throw bad('data.metadata must be an object');
}

// ------------------------------------------------------------------ admin HTTP

function sendJSON(res, status, body, headers = {}) {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length, ...headers });
  res.end(bytes);
}

const httpError = (res, status, code, message, headers) => sendJSON(res, status, { error: { code, message } }, headers);

function groupDetail(group) {
  const detail = { guid: group.guid, name: group.name };
  if (group.icon !== undefined) detail.icon = group.icon;
  detail.membersCount = group.members.length;
  detail.members = group.members;
  return detail;
}

function authorized(req) {
  const match = /^bearer[ \t]+(.+)$/i.exec(req.headers.authorization || '');
  if (!match) return false;
  const given = Buffer.from(match[1].trim(), 'utf8');
  return given.length === adminKey.length && crypto.timingSafeEqual(given, adminKey);
}

// PUT body -> group, or a message for a 400.
function parseGroupPut(guid, body) {
  let value;
  try { value = JSON.parse(body.toString('utf8')); } catch { return 'the body is not JSON'; }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'the body must be a JSON object';
  if (typeof value.name !== 'string' || [...value.name].length < 1 || [...value.name].length > 200) return 'name must be a string of 1 to 200 characters';
  if (present(value.icon) && typeof value.icon !== 'string') return 'icon must be a string';
  if (!Array.isArray(value.members)) return 'members must be an array of uids';
  const members = [];
  const memberSet = new Set();
  for (const uid of value.members) {
    if (typeof uid !== 'string' || !RESOURCE_ID.test(uid)) return 'members must be uids of 1 to 100 characters of [A-Za-z0-9_.@:-]';
    if (!memberSet.has(uid)) { memberSet.add(uid); members.push(uid); }
  }
  const group = { guid, name: value.name, members, memberSet };
  if (present(value.icon)) group.icon = value.icon;
  return group;
}

function route(req, res, body) {
  const path = req.url.split('?')[0];
  if (path === '/healthz') {
    if (req.method !== 'GET') return httpError(res, 405, 'ERR_METHOD_NOT_ALLOWED', 'use GET', { Allow: 'GET' });
    return sendJSON(res, 200, { status: 'ok' });
  }
  if (path !== '/v1' && !path.startsWith('/v1/')) return httpError(res, 404, 'ERR_NOT_FOUND', 'no such path');
  if (!authorized(req)) return httpError(res, 401, 'ERR_UNAUTHORIZED', 'missing or wrong admin key', { 'WWW-Authenticate': 'Bearer' });
  const segments = path.split('/');  // ['', 'v1', 'groups', guid]
  if (segments.length !== 4 || segments[2] !== 'groups' || segments[3] === '') return httpError(res, 404, 'ERR_NOT_FOUND', 'no such route');
  if (!['GET', 'PUT', 'DELETE'].includes(req.method)) return httpError(res, 405, 'ERR_METHOD_NOT_ALLOWED', 'method not allowed', { Allow: 'GET, PUT, DELETE' });
  let guid;
  try { guid = decodeURIComponent(segments[3]); } catch { guid = ''; }
  if (!RESOURCE_ID.test(guid)) return httpError(res, 400, 'ERR_BAD_REQUEST', 'guid must be 1 to 100 characters of [A-Za-z0-9_.@:-]');
  if (req.method === 'PUT') {
    const group = parseGroupPut(guid, body);
    if (typeof group === 'string') return httpError(res, 400, 'ERR_BAD_REQUEST', group);
    groups.set(guid, group);
    return sendJSON(res, 200, groupDetail(group));
  }
  const group = groups.get(guid);
  if (!group) return httpError(res, 404, 'ERR_GROUP_NOT_FOUND', `no group ${guid}`);
  if (req.method === 'GET') return sendJSON(res, 200, groupDetail(group));
  groups.delete(guid);
  res.writeHead(204);
  res.end();
}

// Reads the body (at most MAX_BODY bytes, else 413 before anything else), then routes.
function onRequest(req, res) {
  if (Number(req.headers['content-length'] || 0) > MAX_BODY) {
    res.shouldKeepAlive = false;
    return httpError(res, 413, 'ERR_PAYLOAD_TOO_LARGE', 'the body is over 65536 bytes');
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) return httpError(res, 413, 'ERR_PAYLOAD_TOO_LARGE', 'the body is over 65536 bytes');
    route(req, res, Buffer.concat(chunks));
  });
}

// ------------------------------------------------------------------ WebSocket wiring

const wss = new WebSocket.Server({
  noServer: true,
  clientTracking: false,        // we keep our own uid -> devices table
  maxPayload: MAX_MESSAGE,      // over it, ws closes with 1009
  perMessageDeflate: false,
  handleProtocols: (protocols) => (protocols.has('callgate.v1') ? 'callgate.v1' : false),
});

function onConnection(ws) {
  ws.connectionId = 'n' + (nextConnection++).toString(36);
  ws.user = null;
  ws.connectSent = false;
  ws.deadline = setTimeout(() => { if (!ws.user) ws.close(4001, 'unauthorized'); }, CONNECT_DEADLINE_MS);
  ws.on('message', (data, isBinary) => {
    if (isBinary) ws.send(errorFrame(undefined, 'ERR_BAD_REQUEST', 'binary frames are not accepted'));
    else handle(ws, data.toString('utf8'));
  });
  ws.on('close', () => {
    clearTimeout(ws.deadline);
    if (!ws.user) return;
    const set = devices.get(ws.user.uid);
    set.delete(ws);
    if (set.size === 0) devices.delete(ws.user.uid);
    // Not implemented here: the caller's grace period; a call whose caller is gone rings until its timeout.
  });
  ws.on('error', () => {});
}

const server = http.createServer(onRequest);
server.on('upgrade', (req, socket, head) => {
  if (req.url.split('?')[0] !== '/ws') {
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  socket.setKeepAlive(true, 30000);  // dead peers: TCP keepalive, as CallGate does, no per-socket timers
  wss.handleUpgrade(req, socket, head, onConnection);
});

// Forget finished calls after FINISHED_TTL_MS, once a minute.
setInterval(() => {
  const limit = Date.now() - FINISHED_TTL_MS;
  for (const [sessionId, done] of finished) if (done.at < limit) finished.delete(sessionId);
}, 60000).unref();

server.listen({ host: opts.host, port: opts.port, backlog: 4096 }, () => {
  process.stdout.write(`listening on ${opts.host}:${server.address().port}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}

// Runs the client test vectors of proto/vectors against callgate.js, with a scripted gateway in
// place of the WebSocket (see proto/vectors/README.md for the format).
//
//   node Sources/callgate-js/test/vectors.test.mjs proto/vectors/*.json
//
// Prints `ok <name>` or `FAIL <name>: <why>` per vector; exits 1 when one failed.
import { readFileSync } from "node:fs";
import { CallGateClient } from "../callgate.js";

/** The client's own events the app sees, in order; `reconnecting` only in a vector that names it. */
const WATCHED = ["open", "close", "recovered", "refreshFailed"];
const STEP_MS = 3000;

/** The scripted gateway's end of one socket. */
class ScriptedSocket {
  static OPEN = 1;
  static opened = [];

  constructor(url, protocol) {
    this.url = url;
    this.protocol = protocol;
    this.readyState = 0;
    this.sent = [];
    this.waiters = [];
    ScriptedSocket.opened.push(this);
    setTimeout(() => {
      this.readyState = ScriptedSocket.OPEN;
      this.onopen?.({});
    }, 0);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
    this.waiters.splice(0).forEach((wake) => wake());
  }

  close(code = 1000, reason = "") {
    this.finish(code, reason);
  }

  /** The gateway sends `frame`. */
  deliver(frame) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  /** The socket ends with `code`. */
  finish(code, reason) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** The next request the client sent, waiting up to `ms` for it. */
  async next(ms) {
    const deadline = Date.now() + ms;
    while (this.sent.length === 0) {
      if (Date.now() >= deadline) throw new Error(`no request within ${ms} ms`);
      await new Promise((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
    }
    return this.sent.shift();
  }
}

/** `value` with `{"$nowMs": n}` and `{"$nowSeconds": n}` replaced by now plus n. */
function resolve(value) {
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === "object") {
    if ("$nowMs" in value) return Date.now() + value.$nowMs;
    if ("$nowSeconds" in value) return Math.floor(Date.now() / 1000) + value.$nowSeconds;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, resolve(member)]));
  }
  return value;
}

/** Where `actual` differs from `expected`, every member of which it must have (arrays: same length). */
function mismatch(expected, actual, path = "") {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path}: expected ${expected.length} items, got ${JSON.stringify(actual)}`;
    for (let index = 0; index < expected.length; index++) {
      const found = mismatch(expected[index], actual[index], `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object") return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, member] of Object.entries(expected)) {
      const found = mismatch(member, actual[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  return expected === actual ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

async function run(vector) {
  ScriptedSocket.opened = [];
  const options = { url: "ws://gateway.test/ws", token: vector.client.token, WebSocket: ScriptedSocket, requestTimeoutMs: 5000 };
  if (vector.client.fetchToken) options.fetchToken = async () => vector.client.fetchToken;
  const client = new CallGateClient(options);
  const seen = [];
  const watch = (name) => client.addEventListener(name, (event) => seen.push({ name, detail: event.detail }));
  WATCHED.forEach(watch);
  const pushNames = new Set(vector.steps.flatMap((step) => (step.server?.event ? [step.server.event] : [])));
  pushNames.forEach(watch);
  if (vector.steps.some((step) => step.app?.event === "reconnecting")) watch("reconnecting");
  const connecting = client.connect().catch(() => {});
  try {
    await play(vector, client, seen);
  } finally {
    client.close();
    await connecting;
  }
}

/** Plays `vector`'s steps between the scripted gateway and `client`, whose app saw `seen`. */
async function play(vector, client, seen) {
  let socket = null;
  // How many sockets the client had opened when the gateway last ended one (drop, close): a
  // reconnect is a socket after those, even one opened before the reconnect step.
  let socketsAtEnd = null;
  const current = async () => {
    const deadline = Date.now() + STEP_MS;
    while (!socket || socket !== ScriptedSocket.opened.at(-1)) {
      socket = ScriptedSocket.opened.at(-1) ?? null;
      if (socket) break;
      if (Date.now() > deadline) throw new Error("the client opened no socket");
      await new Promise((wake) => setTimeout(wake, 10));
    }
    return socket;
  };
  const nextEvent = async (ms) => {
    const deadline = Date.now() + ms;
    while (seen.length === 0) {
      if (Date.now() > deadline) return null;
      await new Promise((wake) => setTimeout(wake, 10));
    }
    return seen.shift();
  };
  for (const [index, step] of vector.steps.entries()) {
    const where = `step ${index + 1}`;
    if (step.client) {
      const request = await (await current()).next(step.client.withinMs ?? STEP_MS).catch((error) => {
        throw new Error(`${where}: ${error.message}, expected ${step.client.op}`);
      });
      if (request.op !== step.client.op) throw new Error(`${where}: expected ${step.client.op}, the client sent ${JSON.stringify(request)}`);
      const wrong = mismatch(step.client.data ?? {}, request.data, "data");
      if (wrong) throw new Error(`${where} (${request.op}): ${wrong}`);
      if (step.reply) socket.deliver({ id: request.id, ...resolve(step.reply) });
    } else if (step.server) {
      (await current()).deliver(resolve(step.server));
    } else if (step.app) {
      const event = await nextEvent(STEP_MS);
      if (!event) throw new Error(`${where}: the app saw no event, expected ${step.app.event}`);
      if (event.name !== step.app.event) throw new Error(`${where}: the app saw ${event.name} ${JSON.stringify(event.detail)}, expected ${step.app.event}`);
      const wrong = mismatch(step.app.detail ?? {}, event.detail, "detail");
      if (wrong) throw new Error(`${where} (${event.name}): ${wrong}`);
    } else if (step.drop) {
      (await current()).finish(1006, "");
      socketsAtEnd = ScriptedSocket.opened.length;
    } else if (step.close) {
      (await current()).finish(step.close.code, step.close.reason ?? "");
      socketsAtEnd = ScriptedSocket.opened.length;
    } else if (step.reconnect !== undefined) {
      const before = socketsAtEnd ?? ScriptedSocket.opened.length;
      socketsAtEnd = null;
      const ms = step.withinMs ?? STEP_MS;
      const deadline = Date.now() + ms;
      while (ScriptedSocket.opened.length === before && Date.now() < deadline) {
        await new Promise((wake) => setTimeout(wake, 20));
      }
      const reconnected = ScriptedSocket.opened.length > before;
      if (reconnected !== step.reconnect) throw new Error(`${where}: the client ${reconnected ? "reconnected" : `did not reconnect within ${ms} ms`}`);
    } else if (step.do) {
      client[step.do.method](...step.do.args).catch(() => {});
    } else {
      throw new Error(`${where}: unknown step ${JSON.stringify(step)}`);
    }
  }
  const extra = await nextEvent(200);
  if (extra && extra.name !== "close") throw new Error(`after the last step the app saw ${extra.name} ${JSON.stringify(extra.detail)}`);
}

let failed = 0;
for (const path of process.argv.slice(2)) {
  const vector = JSON.parse(readFileSync(path, "utf8"));
  try {
    await run(vector);
    console.log(`ok ${vector.name}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${vector.name}: ${error.message}`);
  }
}
process.exit(failed ? 1 : 0);

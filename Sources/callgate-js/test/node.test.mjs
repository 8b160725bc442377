// callgate.js in Node against a real gateway (tools/test_js_client.py starts one and runs this):
// alice rings bob, bob's device confirms and answers, both join the session, bob's socket is
// cut and the client recovers it, alice hangs up; every push is heard once, and the call log
// reads it back.
//
//   NODE_PATH=/usr/share/nodejs node Sources/callgate-js/test/node.test.mjs WS_URL ALICE_TOKEN BOB_TOKEN
//
// Prints one line of JSON (what it saw) and exits 0, or prints why and exits 1.
import { createRequire } from "node:module";
import { CallGateClient, CallGateError } from "../callgate.js";

const require = createRequire(import.meta.url);
const WebSocket = require("ws");
const [url, aliceToken, bobToken] = process.argv.slice(2);

/** Every push each client dispatched, by event name, in order. */
function recordPushes(client, names) {
  const heard = [];
  for (const name of names) {
    client.addEventListener(name, (event) => heard.push({ name, detail: event.detail }));
  }
  return heard;
}

/** Resolves with the detail of the next `name` event of `client`, or rejects after `ms`. */
function next(client, name, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} within ${ms} ms`)), ms);
    client.addEventListener(name, (event) => { clearTimeout(timer); resolve(event.detail); }, { once: true });
  });
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

const PUSHES = ["onIncomingCallReceived", "onOutgoingCallRinging", "onOutgoingCallAccepted", "onUserJoined",
  "onUserMuted", "onCallEndedMessageReceived", "onCallEnded"];

async function main() {
  const alice = new CallGateClient({ url, token: aliceToken, WebSocket });
  const bob = new CallGateClient({ url, token: bobToken, WebSocket });
  const aliceHeard = recordPushes(alice, PUSHES);
  const bobHeard = recordPushes(bob, PUSHES);
  const aliceMe = await alice.connect();
  const bobMe = await bob.connect();
  check(aliceMe.user.uid === "alice" && bobMe.user.uid === "bob", "connect answered other users");

  const ringing = next(bob, "onIncomingCallReceived");
  const call = await alice.initiateCall({ receiverId: "bob", receiverType: "user", callType: "audio" });
  check(call.callStatus === "initiated" && /^[0-9a-f-]{36}$/.test(call.callUUID), "initiateCall answered no ringing call");
  check((await ringing).call.sessionId === call.sessionId, "bob was rung for another call");

  const progress = next(alice, "onOutgoingCallRinging");
  await bob.confirmRinging(call.sessionId);
  check((await progress).devices === 1, "the caller was not told of bob's device");
  const accepted = next(alice, "onOutgoingCallAccepted");
  const answered = await bob.acceptCall(call.sessionId);
  check(answered.callStatus === "ongoing" && (await accepted).by.uid === "bob", "the accept was not heard");

  await alice.joinSession((await alice.generateToken(call.sessionId)).callToken);
  const joined = next(alice, "onUserJoined");
  await bob.joinSession((await bob.generateToken(call.sessionId)).callToken);
  await joined;

  // Bob's socket is cut without a close frame: the client reconnects and recovers.
  const recovered = next(bob, "recovered", 10000);
  bob._socket.terminate();
  const recovery = await recovered;
  check(recovery.recovered === true, `the reconnect did not recover: ${JSON.stringify(recovery)}`);

  const muted = next(alice, "onUserMuted");
  await bob.setMuted(call.sessionId, { audioMuted: true });
  check((await muted).user.uid === "bob", "alice did not hear bob mute");

  let refused = null;
  try {
    await bob.initiateCall({ receiverId: "bob", receiverType: "user", callType: "audio" });
  } catch (error) {
    refused = error;
  }
  check(refused instanceof CallGateError && refused.code === "ERR_CALLING_SELF", `calling oneself was not refused: ${refused}`);

  const ended = next(bob, "onCallEndedMessageReceived");
  const over = await alice.endCall(call.sessionId);
  check(over.callStatus === "ended" && (await ended).reason === "hungUp", "the hang-up was not heard");
  await new Promise((resolve) => setTimeout(resolve, 300));

  const log = await alice.callLogs({ perPage: 5 });
  check(log.data.some((entry) => entry.sessionId === call.sessionId && entry.callStatus === "ended"), "the call log lacks the call");
  alice.close();
  bob.close();

  const counts = (heard) => Object.fromEntries(PUSHES.map((name) => [name, heard.filter((push) => push.name === name).length]));
  const once = ["onIncomingCallReceived", "onOutgoingCallAccepted", "onCallEndedMessageReceived"];
  for (const [who, heard] of [["alice", aliceHeard], ["bob", bobHeard]]) {
    for (const name of once) {
      check(heard.filter((push) => push.name === name).length <= 1, `${who} heard ${name} more than once`);
    }
  }
  console.log(JSON.stringify({ sessionId: call.sessionId, recovered: recovery, alice: counts(aliceHeard), bob: counts(bobHeard) }));
}

main().then(() => process.exit(0), (error) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});

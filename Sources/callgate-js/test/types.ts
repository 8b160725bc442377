// Compiled by `tsc -p Sources/callgate-js` (strict) in `make test`: an app's use of the package, typed
// end to end. It is type-checked, never run: the Node test (node.test.mjs) runs the client.
import { CallGateClient, CallGateError } from "../callgate.js";
import type { Call, CallGateEventMap, ConnectResult, Session } from "../callgate.js";

export async function ringAndWatch(url: string, token: string): Promise<Call> {
  const client = new CallGateClient({ url, token, requestTimeoutMs: 5000 });
  client.addEventListener("onIncomingCallReceived", (event) => {
    const call: Call = event.detail.call;
    const invitedBy: string | undefined = event.detail.invitedBy?.uid;
    console.log(call.callUUID, call.ringExpiresAt, invitedBy);
  });
  client.addEventListener("onCallEndedMessageReceived", (event) => {
    const by = event.detail.by?.name ?? "the service";
    console.log(`${by} ended ${event.detail.call.sessionId}: ${event.detail.reason} ${event.detail.call.serverReason ?? ""}`);
  });
  client.addEventListener("onOutgoingCallRinging", (event) => console.log(event.detail.devices, event.detail.waking));
  client.addEventListener("recovered", (event) => console.log(event.detail.lostSessions.length));
  const connected: ConnectResult = await client.connect();
  console.log(connected.user.uid, connected.activeCalls.length, connected.unseenMissedCalls ?? 0);
  const call = await client.initiateCall({ receiverId: "bob", receiverType: "user", callType: "video", callWaiting: true });
  const joined: Session = (await client.joinSession((await client.generateToken(call.sessionId)).callToken)).session;
  console.log(joined.participants.map((participant) => participant.audioMuted));
  try {
    await client.acceptCall(call.sessionId);
  } catch (error) {
    if (error instanceof CallGateError && error.code === "ERR_NOT_PARTICIPANT") {
      await client.rejectCall(call.sessionId, "cancelled");
    }
  }
  const page = await client.callLogs({ perPage: 10, direction: "outgoing" });
  console.log(page.meta.pagination.total, page.data.map((log) => log.callStatus));
  return call;
}

/** Every push name is a key of the event map. */
export const pushNames: (keyof CallGateEventMap)[] = ["onIncomingCallReceived", "onCallHeld", "onMissedCallsChanged"];

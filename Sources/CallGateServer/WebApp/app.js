// The softphone page: signs in, rings, answers, runs the in-call view and shows the call log,
// all through the reference client in callgate.js. Plain DOM, no framework; every value from
// the network goes into the page as text, never as HTML.
import { CallGateClient } from "./callgate.js";

const $ = (id) => document.getElementById(id);

// The development webhook receiver (tools/webhook-receiver): the page reads its GET /events to
// list the webhooks a call sent. Its address comes from ?webhooks=URL or the input, and is kept
// in localStorage under this key.
const WEBHOOKS_KEY = "callgate.webhooks";
const WEBHOOKS_POLL_MS = 2000; // re-read a call's webhooks this often until its terminal one came
const WEBHOOKS_TIMEOUT_MS = 5000;
const TERMINAL_WEBHOOKS = new Set(["call.rejected", "call.busy", "call.cancelled", "call.unanswered", "call.ended"]);

const state = {
  client: null,
  me: null,
  incoming: null, // the Call ringing this device
  outgoing: null, // the Call this device is ringing
  active: null, // the Call whose session this device joined
  audioMuted: false,
  held: false, // whether this user has the active call on hold
  recording: false,
  participants: [],
  hands: new Set(), // uids with a hand raised in the active session (sendSessionEvent "raiseHand")
  heldAway: null, // the Call put on hold to take a waiting call, until taken back
  recoveries: 0, // reconnects that sent recover so far
  historyRequest: 0, // the newest history load: an older answer arriving late is dropped
  webhooksRequest: 0, // the newest webhook list load, likewise
  webhooksTimer: null, // the next re-read of the details' webhooks
  blockedByPolicy: "", // the last URL the page's Content-Security-Policy refused to fetch
};

function setStatus(text) {
  $("status").textContent = text;
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function logEvent(name, text) {
  const item = document.createElement("li");
  item.dataset.event = name;
  item.textContent = `${new Date().toLocaleTimeString()} ${name}${text ? `: ${text}` : ""}`;
  $("events").prepend(item);
}

function nameOf(user) {
  return user ? user.name || user.uid : "?";
}

/** Who a call is with, seen from this user: the group, or the other person. */
function counterpart(call) {
  if (call.receiverType === "group" && call.receiver) return call.receiver.name || call.receiver.guid;
  if (call.initiator && call.initiator.uid !== state.me.uid) return nameOf(call.initiator);
  return nameOf(call.receiver);
}

async function signIn(event) {
  event.preventDefault();
  const uid = $("uid").value.trim();
  const name = $("name").value.trim();
  let token = $("token").value.trim();
  $("signin-button").disabled = true;
  try {
    const minted = !token;
    const mint = async () => (await CallGateClient.devToken(location.origin, uid, name || undefined)).token;
    if (minted) token = await mint();
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const client = new CallGateClient({ url: `${scheme}//${location.host}/ws`, token, fetchToken: minted ? mint : null });
    listen(client);
    const result = await client.connect();
    state.client = client;
    state.me = result.user;
    $("me").textContent = `${nameOf(result.user)} (${result.user.uid})`;
    show("signin", false);
    show("app", true);
    setStatus("Connected.");
    showMissedCalls(client.missedCalls);
    ringIfCalled(result.activeCalls);
    await loadHistory();
  } catch (error) {
    setStatus(`Sign-in failed: ${error.code || ""} ${error.message}`);
  } finally {
    $("signin-button").disabled = false;
  }
}

function signOut() {
  if (state.client) state.client.close();
  Object.assign(state, { client: null, me: null, incoming: null, outgoing: null, active: null, recoveries: 0 });
  stopWebhooks();
  for (const id of ["incoming", "outgoing", "incall", "details", "recovery"]) show(id, false);
  $("events").replaceChildren();
  $("history").replaceChildren();
  show("app", false);
  show("signin", true);
  setStatus("Not signed in.");
}

function listen(client) {
  client.addEventListener("close", (e) => {
    setStatus(e.detail.willReconnect ? `Disconnected (${e.detail.code}); reconnecting…` : `Disconnected (${e.detail.code}).`);
  });
  client.addEventListener("open", (e) => {
    setStatus("Connected.");
    showMissedCalls(client.missedCalls);
    if (e.detail.recovery && !e.detail.recovery.recovered) rebuild(e.detail.activeCalls);
    // A new socket is a new device to the gateway: the ring shown here counts again.
    if (e.detail.recovery && state.incoming) confirmShown(state.incoming);
  });
  client.addEventListener("recovered", (e) => recovered(e.detail));
  client.addEventListener("onIncomingCallReceived", (e) => {
    const invited = e.detail.invitedBy ? `, invited by ${nameOf(e.detail.invitedBy)}` : "";
    logEvent("onIncomingCallReceived", `${nameOf(e.detail.call.initiator)} (${e.detail.call.callType})${invited}`);
    ringing(e.detail.call, e.detail.invitedBy);
  });
  client.addEventListener("onIncomingCallCanceled", (e) => {
    logEvent("onIncomingCallCanceled", e.detail.reason);
    if (state.incoming && state.incoming.sessionId === e.detail.call.sessionId) {
      state.incoming = null;
      show("incoming", false);
    }
    loadHistory();
  });
  client.addEventListener("onOutgoingCallAccepted", (e) => {
    logEvent("onOutgoingCallAccepted", nameOf(e.detail.by));
    if (state.outgoing && state.outgoing.sessionId === e.detail.call.sessionId) {
      state.outgoing = null;
      show("outgoing", false);
      enterSession(e.detail.call);
    }
  });
  client.addEventListener("onOutgoingCallRinging", (e) => {
    const text = progressText(e.detail);
    logEvent("onOutgoingCallRinging", text);
    if (!state.outgoing && e.detail.call.initiator.uid === state.me.uid) {
      // The app's backend rang this call on our behalf (POST /v1/calls): show it as ours.
      showOutgoing(e.detail.call);
    }
    if (state.outgoing && state.outgoing.sessionId === e.detail.call.sessionId) $("outgoing-progress").textContent = text;
  });
  client.addEventListener("onOutgoingCallRejected", (e) => {
    logEvent("onOutgoingCallRejected", `${nameOf(e.detail.by)}: ${e.detail.call.callStatus}`);
    if (state.outgoing && state.outgoing.sessionId === e.detail.call.sessionId) {
      state.outgoing = null;
      show("outgoing", false);
    }
    loadHistory();
  });
  client.addEventListener("onCallEndedMessageReceived", (e) => {
    const who = e.detail.by ? nameOf(e.detail.by) : "the service";
    const why = e.detail.call.serverReason ? `: ${e.detail.call.serverReason}` : "";
    logEvent("onCallEndedMessageReceived", `${who} (${e.detail.reason || "ended"})${why}`);
    if (state.outgoing && state.outgoing.sessionId === e.detail.call.sessionId) {
      state.outgoing = null;
      show("outgoing", false);
    }
    if (state.active && state.active.sessionId === e.detail.call.sessionId) leaveView();
    if (state.heldAway && state.heldAway.sessionId === e.detail.call.sessionId && e.detail.call.callStatus === "ended") {
      state.heldAway = null;
      show("held-away", false);
    }
    loadHistory();
  });
  client.addEventListener("onMissedCallsChanged", (e) => {
    logEvent("onMissedCallsChanged", `${e.detail.unseen} unseen`);
    showMissedCalls(e.detail);
    loadHistory();
  });
  client.addEventListener("onUserJoined", (e) => logEvent("onUserJoined", nameOf(e.detail.user)));
  client.addEventListener("onUserLeft", (e) => logEvent("onUserLeft", nameOf(e.detail.user)));
  client.addEventListener("onUserListChanged", (e) => {
    logEvent("onUserListChanged", e.detail.participants.map(nameOf).join(", "));
    if (isActive(e.detail.sessionId)) renderParticipants(e.detail.participants);
  });
  client.addEventListener("onUserMuted", (e) => {
    const by = e.detail.mutedBy ? ` by ${nameOf(e.detail.mutedBy)}` : "";
    logEvent("onUserMuted", `${nameOf(e.detail.user)} audio ${e.detail.audioMuted ? "off" : "on"}${by}`);
    if (!isActive(e.detail.sessionId)) return;
    if (e.detail.user.uid === state.me.uid) setMuted(e.detail.audioMuted);
    const participant = state.participants.find((p) => p.uid === e.detail.user.uid);
    if (participant) {
      participant.audioMuted = e.detail.audioMuted;
      participant.videoMuted = e.detail.videoMuted;
      renderParticipants(state.participants);
    }
  });
  client.addEventListener("onRecordingToggled", (e) => {
    logEvent("onRecordingToggled", `${e.detail.recordingStarted ? "started" : "stopped"} by ${nameOf(e.detail.user)}`);
    if (isActive(e.detail.sessionId)) setRecording(e.detail.recordingStarted);
  });
  client.addEventListener("onCallSwitchedToVideo", (e) => {
    logEvent("onCallSwitchedToVideo", nameOf(e.detail.requestedBy));
    if (isActive(e.detail.sessionId)) setCallType("video");
  });
  for (const name of ["onCallHeld", "onCallResumed"]) {
    client.addEventListener(name, (e) => {
      logEvent(name, nameOf(e.detail.user));
      if (!isActive(e.detail.sessionId)) return;
      const participant = state.participants.find((p) => p.uid === e.detail.user.uid);
      if (!participant) return;
      participant.onHold = name === "onCallHeld" ? true : undefined;
      renderParticipants(state.participants);
    });
  }
  client.addEventListener("onSessionEvent", (e) => {
    logEvent("onSessionEvent", `${e.detail.type} from ${nameOf(e.detail.user)}`);
    if (!isActive(e.detail.sessionId) || e.detail.type !== "raiseHand") return;
    const raised = Boolean(e.detail.data && e.detail.data.raised);
    if (raised) state.hands.add(e.detail.user.uid); else state.hands.delete(e.detail.user.uid);
    renderParticipants(state.participants);
  });
  client.addEventListener("onRemovedFromCall", (e) => {
    const by = e.detail.by ? nameOf(e.detail.by) : "the service";
    logEvent("onRemovedFromCall", by);
    if (!isActive(e.detail.sessionId)) return;
    leaveView();
    $("removed").textContent = `${by} removed you from the call.`;
    show("removed", true);
    loadHistory();
  });
  client.addEventListener("onSessionTimeout", (e) => {
    logEvent("onSessionTimeout", "");
    if (isActive(e.detail.sessionId)) leaveView();
  });
  client.addEventListener("onCallEnded", (e) => {
    logEvent("onCallEnded", "");
    if (isActive(e.detail.sessionId)) leaveView();
    loadHistory();
  });
}

/** Shows the first call in `activeCalls` that rings this user, unless one rings already. */
function ringIfCalled(activeCalls) {
  const call = activeCalls.find((c) => c.callStatus === "initiated" && c.initiator.uid !== state.me.uid);
  if (call && !state.incoming) ringing(call);
}

/**
 * After a reconnect whose missed events are gone: redraws the ringing screens from the calls
 * the gateway says are live (the call screen is callgate.js' business: it joins again, or
 * reports the session lost).
 */
function rebuild(activeCalls) {
  const stillRings = (call) => activeCalls.some((c) => c.sessionId === call.sessionId && c.callStatus === "initiated");
  if (state.incoming && !stillRings(state.incoming)) {
    state.incoming = null;
    show("incoming", false);
  }
  const outgoing = state.outgoing && activeCalls.find((c) => c.sessionId === state.outgoing.sessionId);
  if (state.outgoing && (!outgoing || outgoing.callStatus !== "initiated")) {
    state.outgoing = null;
    show("outgoing", false);
    if (outgoing) enterSession(outgoing);
  }
  ringIfCalled(activeCalls);
  loadHistory();
}

/** Says how a reconnect went, and leaves the call screen of a session that did not survive it. */
function recovered({ recovered: complete, missed, resumedSessions, rejoinedSessions, lostSessions }) {
  state.recoveries += 1;
  const line = $("recovery");
  Object.assign(line.dataset, {
    count: String(state.recoveries), recovered: String(complete), missed: String(missed),
    resumed: String(resumedSessions.length), rejoined: String(rejoinedSessions.length),
  });
  const events = plural(missed, "missed event");
  line.textContent = complete
    ? `Back after a drop: recovered, caught up ${events}.`
    : "Back after a drop: the missed events were gone; rebuilt from the calls still live.";
  show("recovery", true);
  logEvent("recovered", `${complete ? events : "not recovered"}, ${resumedSessions.length} session(s) resumed, ${rejoinedSessions.length} rejoined`);
  for (const session of [...resumedSessions, ...rejoinedSessions]) {
    if (isActive(session.sessionId)) renderParticipants(session.participants);
  }
  if (state.active && lostSessions.includes(state.active.sessionId)) leaveView();
}

function isActive(sessionId) {
  return state.active !== null && state.active.sessionId === sessionId;
}

function ringing(call, invitedBy) {
  if (call.ringExpiresAt && state.client.serverNow() / 1000 > call.ringExpiresAt) {
    logEvent("ring dropped", `${nameOf(call.initiator)}: its ring expired`);
    return;
  }
  state.incoming = call;
  $("incoming-from").textContent = invitedBy
    ? `${nameOf(invitedBy)}, into ${nameOf(call.initiator)}'s call`
    : call.receiverType === "group" ? `${nameOf(call.initiator)} in ${counterpart(call)}` : nameOf(call.initiator);
  $("incoming-type").textContent = call.callType;
  show("incoming", true);
  confirmShown(call);
}

/** Tells the caller the ring shows on this device (a ring that stopped meanwhile is no error). */
function confirmShown(call) {
  state.client.confirmRinging(call.sessionId).catch((error) => logEvent("confirmRinging", `${error.code}: ${error.message}`));
}

/** "Ringing on 2 devices", "Waking Bob's phone": what the caller's screen says of the ring. */
function progressText(progress) {
  const group = progress.call.receiverType === "group";
  const parts = [];
  if (progress.devices > 0) {
    parts.push(group
      ? `Ringing ${progress.users} of ${plural(progress.ringing, "member")} on ${plural(progress.devices, "device")}`
      : `Ringing on ${plural(progress.devices, "device")}`);
  }
  if (progress.waking > 0) {
    parts.push(group ? `Waking ${plural(progress.waking, "member")}' phones` : `Waking ${counterpart(progress.call)}'s phone`);
  }
  return parts.join(" · ") || "Calling…";
}

/** Shows `call`, which this user's side rings, on the outgoing screen. */
function showOutgoing(call) {
  state.outgoing = call;
  $("outgoing-to").textContent = counterpart(call);
  $("outgoing-progress").textContent = "";
  show("outgoing", true);
}

async function placeCall(event) {
  event.preventDefault();
  try {
    const call = await state.client.initiateCall({
      receiverId: $("callee").value.trim(),
      receiverType: $("receiver-type").value,
      callType: $("call-type").value,
      ...($("call-waiting").checked ? { callWaiting: true } : {}),
    });
    if (call.callStatus === "initiated") {
      showOutgoing(call);
    } else {
      logEvent("initiateCall", call.callStatus);
    }
  } catch (error) {
    logEvent("initiateCall failed", `${error.code}: ${error.message}`);
  }
}

async function act(label, operation) {
  try {
    return await operation();
  } catch (error) {
    logEvent(`${label} failed`, `${error.code}: ${error.message}`);
    return undefined;
  }
}

async function accept() {
  const call = state.incoming;
  if (!call) return;
  state.incoming = null;
  show("incoming", false);
  const current = state.active;
  const answered = await act("acceptCall", () => state.client.acceptCall(call.sessionId));
  if (!answered) return;
  if (current && current.sessionId !== answered.sessionId) {
    // A waiting call: the gateway put the current one on hold for us; it waits to be taken back.
    state.heldAway = current;
    $("held-away-with").textContent = counterpart(current);
    show("held-away", true);
  }
  await enterSession(answered);
}

/** Takes back the call held for a waiting one (resumeCall), once this user is in no other call. */
async function takeBack() {
  const call = state.heldAway;
  if (!call) return;
  const resumed = await act("resumeCall", () => state.client.resumeCall(call.sessionId));
  if (!resumed) return;
  state.heldAway = null;
  show("held-away", false);
  state.active = call;
  $("incall-title").textContent = `In call with ${counterpart(call)}`;
  setHeld(false);
  renderParticipants(resumed.session.participants);
  show("incall", true);
}

async function decline() {
  const call = state.incoming;
  if (!call) return;
  state.incoming = null;
  show("incoming", false);
  await act("rejectCall", () => state.client.rejectCall(call.sessionId, "rejected"));
  loadHistory();
}

async function cancel() {
  const call = state.outgoing;
  if (!call) return;
  state.outgoing = null;
  show("outgoing", false);
  await act("rejectCall", () => state.client.rejectCall(call.sessionId, "cancelled"));
  loadHistory();
}

async function enterSession(call) {
  state.active = call;
  state.hands = new Set();
  $("incall-title").textContent = `In call with ${counterpart(call)}`;
  setCallType(call.callType);
  setRecording(false);
  setMuted(false);
  setHand(false);
  setHeld(false);
  show("removed", false);
  renderParticipants([]);
  show("incall", true);
  const token = await act("generateToken", () => state.client.generateToken(call.sessionId));
  if (!token || !isActive(call.sessionId)) return;
  const joined = await act("joinSession", () => state.client.joinSession(token.callToken));
  if (!joined || !isActive(call.sessionId)) return;
  setRecording(joined.session.recording);
  setCallType(joined.session.callType);
  renderParticipants(joined.session.participants);
}

function leaveView() {
  state.active = null;
  show("incall", false);
}

async function leave() {
  const call = state.active;
  if (!call) return;
  leaveView();
  await act("leaveSession", () => state.client.leaveSession(call.sessionId));
  loadHistory();
}

async function toggleMute() {
  if (!state.active) return;
  const audioMuted = !state.audioMuted;
  if (await act("setMuted", () => state.client.setMuted(state.active.sessionId, { audioMuted }))) setMuted(audioMuted);
}

/** Puts the call on hold on this side, or takes it off hold. */
async function toggleHold() {
  if (!state.active) return;
  const sessionId = state.active.sessionId;
  const holding = !state.held;
  const done = await act(holding ? "holdCall" : "resumeCall", () =>
    holding ? state.client.holdCall(sessionId) : state.client.resumeCall(sessionId));
  if (!done) return;
  setHeld(holding);
  renderParticipants(done.session.participants);
}

function setHeld(on) {
  state.held = on;
  $("hold-button").textContent = on ? "Resume" : "Hold";
}

function setMuted(on) {
  state.audioMuted = on;
  $("mute-button").textContent = on ? "Unmute" : "Mute";
}

/** Rings the uid typed in the call screen into the call. */
async function invite(event) {
  event.preventDefault();
  const uid = $("invite-uid").value.trim();
  if (!state.active || !uid) return;
  const result = await act("inviteToCall", () => state.client.inviteToCall(state.active.sessionId, [uid]));
  if (!result) return;
  $("invite-uid").value = "";
  logEvent("inviteToCall", result.rung.length ? `ringing ${result.rung.join(", ")}` : `${result.busy.join(", ")} is busy`);
}

/** Raises or lowers this user's hand: a session event the others show next to their name. */
async function toggleHand() {
  if (!state.active) return;
  const raised = !state.hands.has(state.me.uid);
  if (await act("sendSessionEvent", () => state.client.sendSessionEvent(state.active.sessionId, "raiseHand", { raised }))) {
    setHand(raised);
    renderParticipants(state.participants);
  }
}

function setHand(raised) {
  if (raised) state.hands.add(state.me.uid); else state.hands.delete(state.me.uid);
  $("hand-button").textContent = raised ? "Lower hand" : "Raise hand";
}

/** Whether this user hosts the active call's session (its caller): only the host mutes and removes others. */
function isHost() {
  return Boolean(state.active && state.me && state.active.initiator.uid === state.me.uid);
}

/** The host's control next to a participant: mute them or remove them from the call. */
function hostButton(label, action, participant) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.dataset.action = action;
  button.addEventListener("click", async () => {
    const sessionId = state.active && state.active.sessionId;
    if (!sessionId) return;
    const result = await act(action, () => action === "muteParticipant"
      ? state.client.muteParticipant(sessionId, participant.uid)
      : state.client.removeParticipant(sessionId, participant.uid));
    // Removing the other party of a 1:1 call ends it: the reply is the only word this device gets.
    if (result && result.session.participants.length === 0 && isActive(sessionId)) {
      leaveView();
      loadHistory();
    }
  });
  return button;
}

async function toggleRecording() {
  if (!state.active) return;
  const sessionId = state.active.sessionId;
  const starting = !state.recording;
  const done = await act(starting ? "startRecording" : "stopRecording", () =>
    starting ? state.client.startRecording(sessionId) : state.client.stopRecording(sessionId));
  if (done) setRecording(starting);
}

async function switchToVideo() {
  if (!state.active) return;
  if (await act("switchToVideo", () => state.client.switchToVideo(state.active.sessionId))) setCallType("video");
}

function setRecording(on) {
  state.recording = on;
  $("record-button").textContent = on ? "Stop recording" : "Start recording";
  show("recording-indicator", on);
}

function setCallType(type) {
  $("incall-type").textContent = type;
  $("video-button").disabled = type === "video";
}

function renderParticipants(participants) {
  state.participants = participants.map((p) => ({ ...p }));
  const items = state.participants.map((p) => {
    const item = document.createElement("li");
    item.dataset.uid = p.uid;
    item.dataset.audioMuted = String(Boolean(p.audioMuted));
    item.dataset.hand = String(state.hands.has(p.uid));
    item.dataset.onHold = String(Boolean(p.onHold));
    item.textContent = `${state.hands.has(p.uid) ? "✋ " : ""}${nameOf(p)}${p.audioMuted ? " (muted)" : ""}${p.videoMuted ? " (camera off)" : ""}${p.onHold ? " (on hold)" : ""}`;
    if (isHost() && p.uid !== state.me.uid) {
      if (!p.audioMuted) item.append(" ", hostButton("Mute", "muteParticipant", p));
      item.append(" ", hostButton("Remove", "removeParticipant", p));
    }
    return item;
  });
  $("participants").replaceChildren(...items);
}

function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function formatTime(unixSeconds) {
  return unixSeconds ? new Date(unixSeconds * 1000).toLocaleString() : "";
}

// The badge of missed calls no device of this user marked seen, and the button that marks them.
function showMissedCalls(count) {
  const unseen = count ? count.unseen : 0;
  $("missed-badge").textContent = `${unseen} missed`;
  show("missed-badge", unseen > 0);
  show("mark-seen", unseen > 0);
}

async function markSeen() {
  const count = await act("markCallsSeen", () => state.client.markCallsSeen());
  if (count) showMissedCalls(count);
}

async function loadHistory(event) {
  if (event) event.preventDefault();
  if (!state.client) return;
  const request = ++state.historyRequest;
  const page = await act("GET /v3.0/calls", () =>
    state.client.callLogs({ perPage: 30, type: $("filter-type").value, direction: $("filter-direction").value }));
  if (!page || request !== state.historyRequest) return;
  const items = page.data.map((log) => {
    const item = document.createElement("li");
    item.dataset.sessionId = log.sessionId;
    item.dataset.status = log.callStatus;
    item.dataset.type = log.callType;
    item.dataset.direction = log.callDirection;
    item.dataset.missed = String(Boolean(log.missed));
    if (log.missed) item.classList.add("missed");
    if (log.missed && !log.seen) item.classList.add("unseen");
    const arrow = log.callDirection === "incoming" ? "←" : "→";
    const other = log.callCategory === "meet" ? `meeting ${log.sessionId}` : counterpart(log);
    item.textContent = `${arrow} ${other} · ${log.callType} · ${log.missed ? "missed" : log.callStatus} · ${formatDuration(log.duration)} · ${formatTime(log.initiatedAt)}`;
    item.tabIndex = 0;
    item.addEventListener("click", () => showDetails(log.sessionId));
    return item;
  });
  $("history").replaceChildren(...items);
}

async function showDetails(sessionId) {
  const detail = await act("GET /v3.0/calls/{sessionId}", () => state.client.callLog(sessionId));
  if (!detail || detail.data.length === 0) return;
  const log = detail.data[0];
  $("details-title").textContent = `${log.callType} call ${log.callDirection === "incoming" ? "from" : "to"} ${counterpart(log)}`;
  $("details-summary").textContent = `${log.missed ? "missed" : log.callStatus}, ${formatDuration(log.duration)}, started ${formatTime(log.initiatedAt)}`;
  const rows = log.participants.map((p) => {
    const row = document.createElement("tr");
    row.dataset.uid = p.uid;
    const held = p.heldDuration === undefined ? "" : ` (on hold ${formatDuration(p.heldDuration)})`;
    for (const text of [nameOf(p), p.state, formatTime(p.joinedAt), formatDuration(p.totalDuration) + held]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  });
  $("details-participants").replaceChildren(...rows);
  const sameCall = !$("details").hidden && $("details").dataset.sessionId === sessionId;
  $("details").dataset.sessionId = sessionId;
  $("details-timeline").replaceChildren();
  show("details-timeline-omitted", false);
  show("details", true);
  loadWebhooks(sessionId, { fresh: !sameCall });
  loadTimeline(sessionId);
}

// --- The call's timeline (GET /v3.0/calls/{sessionId}/timeline) -------------------------------

/** Lists every step of the call in the details, oldest first, with its time to the millisecond. */
async function loadTimeline(sessionId) {
  const timeline = await act("GET /v3.0/calls/{sessionId}/timeline", () => state.client.timeline(sessionId));
  if (!timeline || timeline.data.length === 0 || $("details").dataset.sessionId !== sessionId) return;
  const call = timeline.data[0];
  $("details-timeline").replaceChildren(...call.steps.map(timelineItem));
  $("details-timeline-omitted").textContent = `${call.omittedSteps} steps left out between these`;
  show("details-timeline-omitted", call.omittedSteps > 0);
}

/** One step as a list item: its time, then what happened. */
function timelineItem(step) {
  const item = document.createElement("li");
  item.dataset.step = step.step;
  const time = new Date(step.at);
  item.textContent = `${time.toLocaleTimeString()}.${String(time.getMilliseconds()).padStart(3, "0")} ${describeStep(step)}`;
  return item;
}

/** What a step says, in words. */
function describeStep(step) {
  const who = step.uid || "";
  const device = step.device ? ` on device ${step.device}` : "";
  switch (step.step) {
    case "initiated": return `${who} called${device}`;
    case "rung": return `${who} rung on ${step.devices} device${step.devices === 1 ? "" : "s"}${step.wakeUp ? ", phone woken by push" : ""}`;
    case "busy": return `${who} busy in another call, not rung`;
    case "ringing": return `ringing for ${who}${device}`;
    case "declined": return `${who} declined (${step.status})${device}`;
    case "accepted": return `${who} answered${device}`;
    case "missed": return `${who} missed it`;
    case "joined": return `${who} joined${device}`;
    case "left": return `${who} left (${step.reason})`;
    case "recordingStarted": return `recording ${step.rid} started by ${who}`;
    case "recordingStopped": return `recording ${step.rid} stopped${who ? ` by ${who}` : ""}`;
    case "finished": return `${step.status}${who ? ` by ${who}` : ""}${step.reason ? ` (${step.reason})` : ""}`;
    case "webhook": return `webhook ${step.event} to ${step.endpoint}: ${step.result}${step.attempt ? ` (attempt ${step.attempt}${step.httpStatus ? `, HTTP ${step.httpStatus}` : ""})` : ""}`;
    default: return step.step;
  }
}

// --- The call's webhooks, from the development receiver ---------------------------------------

function storedWebhooksUrl() {
  try {
    return localStorage.getItem(WEBHOOKS_KEY) || "";
  } catch {
    return ""; // storage turned off: nothing remembered
  }
}

function storeWebhooksUrl(value) {
  try {
    if (value) localStorage.setItem(WEBHOOKS_KEY, value);
    else localStorage.removeItem(WEBHOOKS_KEY);
  } catch {
    // storage turned off: the address holds for this page only
  }
}

/** Fills the receiver input from ?webhooks= (and remembers it), else from the last one used. */
function initWebhooksUrl() {
  const fromQuery = new URLSearchParams(location.search).get("webhooks");
  if (fromQuery !== null) storeWebhooksUrl(fromQuery.trim());
  $("webhooks-url").value = fromQuery !== null ? fromQuery.trim() : storedWebhooksUrl();
}

function webhooksUrlChanged(event) {
  if (event) event.preventDefault();
  storeWebhooksUrl($("webhooks-url").value.trim());
  if (!$("details").hidden) loadWebhooks($("details").dataset.sessionId, { fresh: true });
}

function stopWebhooks() {
  state.webhooksRequest += 1;
  clearTimeout(state.webhooksTimer);
  state.webhooksTimer = null;
}

/** The receiver's feed of `sessionId`'s events; throws when `base` is not an http(s) address. */
function webhooksFeedUrl(base, sessionId) {
  let url;
  try {
    url = new URL("/events", base.includes("://") ? base : `http://${base}`);
  } catch {
    throw new Error(`The webhook receiver "${base}" is not an address like http://127.0.0.1:9000.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`The webhook receiver "${base}" is not an http(s) address.`);
  }
  url.searchParams.set("sessionId", sessionId);
  url.searchParams.set("limit", "500");
  return url;
}

/** The feed's entries for `sessionId`; throws an Error whose message the page can show. */
async function fetchWebhooks(base, sessionId) {
  const url = webhooksFeedUrl(base, sessionId);
  const where = `the webhook receiver at ${url.origin}`;
  let response;
  try {
    response = await fetch(url, { cache: "no-store", signal: AbortSignal.timeout(WEBHOOKS_TIMEOUT_MS) });
  } catch (error) {
    await new Promise((resolve) => setTimeout(resolve, 0)); // a policy violation is reported after the failure
    const reason = error.name === "TimeoutError" ? "no answer within 5 s"
      : state.blockedByPolicy.startsWith(url.origin) ? "this page's Content-Security-Policy allows only the origin of the gateway's --webhook-url"
      : "no connection";
    throw new Error(`Cannot reach ${where} (${reason}): is tools/webhook-receiver/webhook_receiver.py running there?`);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`${where} answered ${response.status}: ${text.trim() || response.statusText}`);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!body || !Array.isArray(body.data)) throw new Error(`${where} did not answer a list of events: is it tools/webhook-receiver?`);
  return body.data;
}

function setWebhooksMessage(text, kind) {
  const line = $("details-webhooks-status");
  line.textContent = text;
  line.dataset.state = kind;
  show("details-webhooks-status", Boolean(text));
}

/**
 * Lists `sessionId`'s webhooks in the call details when a receiver is set, and re-reads them
 * every few seconds until the call's terminal event is among them. `fresh`: a new call or
 * receiver, so the old list goes first. Never throws: a failure is a message in the page.
 */
async function loadWebhooks(sessionId, { fresh = false } = {}) {
  stopWebhooks();
  const request = state.webhooksRequest;
  const base = $("webhooks-url").value.trim();
  show("details-webhooks-section", Boolean(base));
  if (fresh) $("details-webhooks").replaceChildren();
  if (!base || !sessionId) return;
  if (fresh) setWebhooksMessage("Loading…", "loading");
  const current = () => request === state.webhooksRequest && !$("details").hidden && $("details").dataset.sessionId === sessionId;
  try {
    const events = await fetchWebhooks(base, sessionId);
    if (!current()) return;
    $("details-webhooks").replaceChildren(...events.map(webhookItem));
    const done = events.some((e) => TERMINAL_WEBHOOKS.has(e.type));
    setWebhooksMessage(events.length ? "" : "No webhooks for this call (yet).", "ok");
    if (!done) state.webhooksTimer = setTimeout(() => loadWebhooks(sessionId), WEBHOOKS_POLL_MS);
  } catch (error) {
    if (!current()) return;
    setWebhooksMessage(error.message, "error");
  }
}

function devices(count) {
  return plural(count, "device");
}

/** "1 device", "2 devices". */
function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function clockTime(event) {
  const date = new Date(event.timestamp || event.receivedAt * 1000);
  if (Number.isNaN(date.getTime())) return "--:--:--";
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** One webhook as a line: `12:00:01 call.ringing bob (0 devices online: push)`. */
function describeWebhook(event) {
  const data = event.data || {};
  const parts = [clockTime(event), String(event.type)];
  if (data.user && data.user.uid) parts.push(String(data.user.uid));
  if (data.by && data.by.uid) parts.push(`by ${data.by.uid}`);
  if (typeof data.onlineDevices === "number") {
    parts.push(`(${devices(data.onlineDevices)} online${data.onlineDevices === 0 ? ": push" : ""})`);
  }
  if (data.reason) parts.push(`(${data.reason})`);
  if (event.status === null || event.status === undefined) parts.push("[being answered]");
  else if (event.status < 200 || event.status > 299) parts.push(`[answered ${event.status}]`);
  return parts.join(" ");
}

function webhookItem(event) {
  const item = document.createElement("li");
  item.dataset.type = String(event.type);
  item.dataset.id = String(event.id);
  const status = event.status;
  item.dataset.answered = status === null || status === undefined ? "pending" : status >= 200 && status <= 299 ? "ok" : "failed";
  item.textContent = describeWebhook(event);
  return item;
}

$("signin-form").addEventListener("submit", signIn);
$("signout-button").addEventListener("click", signOut);
$("call-form").addEventListener("submit", placeCall);
$("accept-button").addEventListener("click", accept);
$("decline-button").addEventListener("click", decline);
$("cancel-button").addEventListener("click", cancel);
$("leave-button").addEventListener("click", leave);
$("mute-button").addEventListener("click", toggleMute);
$("record-button").addEventListener("click", toggleRecording);
$("video-button").addEventListener("click", switchToVideo);
$("hand-button").addEventListener("click", toggleHand);
$("hold-button").addEventListener("click", toggleHold);
$("take-back-button").addEventListener("click", takeBack);
$("invite-form").addEventListener("submit", invite);
$("history-filters").addEventListener("submit", loadHistory);
$("mark-seen").addEventListener("click", markSeen);
$("filter-type").addEventListener("change", () => loadHistory());
$("filter-direction").addEventListener("change", () => loadHistory());
$("webhooks-form").addEventListener("submit", webhooksUrlChanged);
$("webhooks-url").addEventListener("change", () => webhooksUrlChanged());
$("details-webhooks-refresh").addEventListener("click", () => loadWebhooks($("details").dataset.sessionId));
document.addEventListener("securitypolicyviolation", (e) => {
  state.blockedByPolicy = e.blockedURI;
});
initWebhooksUrl();

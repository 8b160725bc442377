// The types of callgate.js. The wire's types are protocol.d.ts, generated from proto/.
import type {
  Call, CallGateEventMap, CallLogDetailBody, CallLogListBody, CallTimelineBody, ConnectResult, ErrorCode,
  GenerateTokenResult, InitiateCallParams, InviteToCallResult, JoinSessionResult, MissedCalls, PingResult,
  RefreshTokenResult, RejectStatus, SendSessionEventResult, Session, SessionEventData,
} from "./protocol.js";

export * from "./protocol.js";

/** The subprotocol the gateway speaks: `callgate.v1`. */
export declare const SUBPROTOCOL: "callgate.v1";

/**
 * The delay a 1012 close's reason asks for (`{"reconnectWithinMs": N}`, N a whole number from 0
 * to 60000), or null when the reason is not such a hint. The client uses it by itself.
 */
export declare function reconnectHint(reason: string): number | null;

/** Codes the client gives requests that got no reply; the gateway never sends them. */
export type ClientErrorCode = "ERR_TIMEOUT" | "ERR_DISCONNECTED";

/** An error reply from the gateway, or a client-side failure of a request. */
export declare class CallGateError extends Error {
  constructor(code: ErrorCode | ClientErrorCode | string, message: string);
  /** The reply's error code (`ERR_CALL_CANCELLED`, ...), or a client-side one. */
  readonly code: ErrorCode | ClientErrorCode | string;
}

/** What `new CallGateClient(...)` takes. */
export interface CallGateClientOptions {
  /** ws:// or wss:// URL of the gateway's `/ws`. */
  url: string;
  /** The user's connection token (HS256 JWT from your backend). */
  token: string;
  /** Reconnect after unexpected closes (default true). */
  reconnect?: boolean;
  /** How long a request waits for its reply (default 10000). */
  requestTimeoutMs?: number;
  /** Returns a fresh connection token for the same user; the client refreshes before expiry. */
  fetchToken?: (() => Promise<string>) | null;
  /** The WebSocket class (default the global one; in Node before 22, the `ws` package's). */
  WebSocket?: unknown;
}

/** The `detail` of the client's own events. */
export interface CallGateClientEventMap {
  /** After each successful `connect`: its result. */
  open: ConnectResult;
  /** The socket closed. */
  close: { code: number; reason: string; willReconnect: boolean };
  /** A reconnect is scheduled. */
  reconnecting: { attempt: number; delayMs: number };
  /** After each `connect` that sent `recover`: what was resumed, joined again, or lost. */
  recovered: {
    recovered: boolean;
    missed: number;
    resumedSessions: Session[];
    rejoinedSessions: Session[];
    lostSessions: string[];
  };
  /** With `fetchToken`: an automatic token refresh did not succeed. */
  refreshFailed: { code: string; message: string };
}

/** Every event a client dispatches, by name: the pushes and its own. */
export type CallGateAllEvents = CallGateEventMap & CallGateClientEventMap;

/** A call log query: the parameters of `GET /v3.0/calls`. */
export interface CallLogQuery {
  page?: number;
  perPage?: number;
  cursor?: string;
  mode?: "call" | "meet";
  type?: "audio" | "video";
  status?: string;
  direction?: "incoming" | "outgoing";
  hasRecording?: boolean | 0 | 1;
  uid?: string;
  guid?: string;
}

/** One user's device: a socket to the gateway, its ops, its pushes as events, and the call log. */
export declare class CallGateClient extends EventTarget {
  constructor(options: CallGateClientOptions);
  url: string;
  token: string;
  reconnect: boolean;
  requestTimeoutMs: number;
  /** The `connect` result of the current connection, or null. */
  session: ConnectResult | null;
  /** The newest unseen missed-call count this client knows of, or null. */
  missedCalls: MissedCalls | null;
  /** Whether the socket is open and `connect` succeeded. */
  readonly isConnected: boolean;

  addEventListener<K extends keyof CallGateAllEvents>(
    type: K, listener: (event: CustomEvent<CallGateAllEvents[K]>) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof CallGateAllEvents>(
    type: K, listener: (event: CustomEvent<CallGateAllEvents[K]>) => void, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void;

  /** Opens the socket and authenticates (recovering what the last connection missed). */
  connect(): Promise<ConnectResult>;
  /** Closes the socket for good. */
  close(): void;
  /** The gateway's clock now, Unix milliseconds. */
  serverNow(): number;

  initiateCall(params: InitiateCallParams): Promise<Call>;
  acceptCall(sessionId: string): Promise<Call>;
  confirmRinging(sessionId: string): Promise<Call>;
  rejectCall(sessionId: string, status: RejectStatus): Promise<Call>;
  endCall(sessionId: string): Promise<Call>;
  ping(): Promise<PingResult>;
  markCallsSeen(sessionId?: string): Promise<MissedCalls>;
  refreshToken(token: string): Promise<RefreshTokenResult>;

  generateToken(sessionId: string): Promise<GenerateTokenResult>;
  joinSession(callToken: string, idleTimeout?: number): Promise<JoinSessionResult>;
  leaveSession(sessionId: string): Promise<{ session: Session }>;
  setMuted(sessionId: string, state: { audioMuted?: boolean; videoMuted?: boolean }): Promise<{ session: Session }>;
  startRecording(sessionId: string): Promise<{ session: Session }>;
  stopRecording(sessionId: string): Promise<{ session: Session }>;
  switchToVideo(sessionId: string): Promise<{ session: Session }>;
  inviteToCall(sessionId: string, receiverIds: string[]): Promise<InviteToCallResult>;
  holdCall(sessionId: string): Promise<{ session: Session }>;
  resumeCall(sessionId: string): Promise<{ session: Session }>;
  sendSessionEvent(sessionId: string, type: string, data?: SessionEventData): Promise<SendSessionEventResult>;
  muteParticipant(sessionId: string, uid: string): Promise<{ session: Session }>;
  removeParticipant(sessionId: string, uid: string): Promise<{ session: Session }>;

  /** One page of this user's call log, newest first. */
  callLogs(query?: CallLogQuery): Promise<CallLogListBody>;
  /** Every call under `sessionId` this user was part of. */
  callLog(sessionId: string): Promise<CallLogDetailBody>;
  /** What happened in each call under `sessionId`, step by step. */
  timeline(sessionId: string): Promise<CallTimelineBody>;

  /** Development only: a token from a gateway that runs with a generated secret. */
  static devToken(baseURL: string | URL, uid: string, name?: string): Promise<{ token: string; expiresAt: number }>;
}

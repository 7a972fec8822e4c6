// What an authority's profile gives the generic server: its protocol (paths, the device a call
// names, the body's binding, the answers), how its answers go over HTTP, and its store and
// control operations. The server owns the listener, the fault switches' timing (down, delay),
// the call log and the control API's routing; the profile owns every word the authority says.
import type { DeviceFaults, FaultVocabulary } from './faults.js';
import type { DeviceStore, StoredDevice, Taxpayer } from './store.js';

/** A request's headers, names in lower case (node's). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** An HTTP answer, or null: destroy the socket without one. */
export type HttpAnswer = { status: number; contentType: string; body: string } | null;

/** A control API answer. */
export interface ControlResult {
  status: number;
  body: unknown;
  /** Runs once the reply is flushed (a restart must not cut its own reply). */
  afterReply?: () => void;
}

/** The control operations every profile answers (the control API's generic routes call them). */
export interface ProfileControl {
  reset(): void;
  listTaxpayers(): Taxpayer[];
  addTaxpayer(input: unknown): Taxpayer;
  listDevices(): unknown[];
  getDevice(tpin: string, bhfId: string): unknown;
  presetDevice(tpin: string, bhfId: string, preset: Record<string, never>): unknown;
  forgetDevice(tpin: string, bhfId: string): boolean;
  calls(tpin: string, bhfId: string, endpoint?: string): unknown[];
  getFaults(tpin: string, bhfId: string): DeviceFaults;
  setFaults(tpin: string, bhfId: string, input: unknown): DeviceFaults;
  clearFaults(tpin: string, bhfId: string): DeviceFaults;
}

/** One profile at work in a server: its store, its control, and its protocol bound to them. */
export interface ProfileInstance<R = unknown, D extends StoredDevice = StoredDevice> {
  readonly store: DeviceStore<D>;
  readonly control: ProfileControl;
  readonly faultWords: FaultVocabulary;
  /**
   * The profile's own control routes (feeds it seeds, documents it filed), or undefined when the
   * route is none of its. `parts` are the path's segments after the control prefix.
   */
  controlRoute(method: string, parts: readonly string[], query: URLSearchParams, body: unknown): ControlResult | undefined;
  /** The device a request names (its body, or its headers where the authority keys calls by them), or null when its key is malformed or missing (answered by `unknownDevice`). */
  deviceKeyOf(body: Record<string, unknown>, headers: RequestHeaders): { tpin: string; bhfId: string } | null;
  /** False when the body fails the authority's binding (its bare 400), coercing in place as the authority does. */
  bind(endpoint: string, body: Record<string, unknown>): boolean;
  /** The answer to a call to a known device, after the server's fault switches. */
  answer(endpoint: string, body: Record<string, unknown>, device: D, now: Date, headers: RequestHeaders): R;
  /** The `forcedResult` switch's answer. */
  forced(code: string, message: string): R;
  /** The answer to a call whose device key is malformed. */
  unknownDevice(body: Record<string, unknown>, headers: RequestHeaders): R;
  /** The answer to a body that is no JSON object, or fails binding. */
  badRequest(): R;
  /** The `html404` switch's answer: the authority's app missing from its server. */
  appMissing(): R;
  /** The result code an answer carries (the call log's), or null for an answer the log skips. */
  resultCodeOf(answer: R): string | null;
  /** The answer over HTTP; `at` is its time (the call log's `resultDt` is `formatTime(at)`). */
  toHttp(answer: R, path: string, at: Date): HttpAnswer;
  formatTime(at: Date): string;
  /** An answer the authority's host gives beside its protocol (a token endpoint), or undefined: the path is the protocol's. */
  beside?(method: string, path: string, headers: RequestHeaders): HttpAnswer | undefined;
  /** A path outside the app, a path inside it that names no endpoint, an endpoint not called with POST. */
  outsideApp(path: string): HttpAnswer;
  noEndpoint(path: string, at: Date): HttpAnswer;
  wrongMethod(path: string, at: Date): HttpAnswer;
}

/** An authority's profile: a folder under profiles/, one line in profiles/index.ts. */
export interface SimulatorProfile<I extends ProfileInstance = ProfileInstance> {
  /** Also the path segment that addresses it (`/<id>/…`, `/_sim/profiles/<id>/…`). */
  readonly id: string;
  /** The endpoint a path inside the app names. */
  endpointAt(path: string): string | undefined;
  /** Opens the profile's store (stateFile absent: memory only) and control. */
  open(options: { stateFile?: string; now: () => Date }): I;
}

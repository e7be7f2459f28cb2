// Argument parsing, error types and the command contract of the fake herdr.
import { userInfo } from "node:os";
import { join } from "node:path";
import type { FakeState, QueuedFailure } from "./herdr-state.ts";

/** Plain-text stderr line, exit 2 (clap-style client-side rejection). */
export class UsageError extends Error {}

/** A plain-text line with exit 1: herdr's client fails this way on a bad `--source` or `--lines`. */
export class CliError extends Error {}

/** The caller went away while its call waited: nothing more is done for it. */
export class Abandoned extends Error {}

/** JSON error envelope on stderr, exit 1. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type OptKind = "value" | "flag" | "multi";

export interface Parsed {
  pos: string[];
  opts: Record<string, string | boolean | string[]>;
  /** Arguments after `--` when the command takes a trailing argv. */
  rest: string[];
}

export interface CommandDef {
  usage: string;
  opts: Record<string, OptKind>;
  min: number;
  /** Maximum positionals; Infinity for `pane run <pane> <command...>`. */
  max: number;
  rest?: boolean;
  /** Queued failures this handler acts on itself instead of failing up front. */
  handles?: (f: QueuedFailure) => boolean;
  run: Handler;
}

export interface Ctx {
  id: string;
  statePath: string;
  socket: string;
  /** The caller's environment (herdr-wire.ts SENT_ENV), its physical cwd and its pid. */
  env: Record<string, string | undefined>;
  cwd: string;
  pid: number;
  /** True once the caller is gone. */
  gone?: () => boolean;
  /** The queued failure this call consumed, when the handler must act on it. */
  failure?: QueuedFailure;
}

export type Outcome = { json: Record<string, unknown> } | { text: string } | { silent: true } | { wait: () => Promise<Outcome> };

export type Handler = (p: Parsed, s: FakeState, ctx: Ctx, now: number) => Outcome;

function isOption(arg: string): boolean {
  return arg.length > 1 && arg.startsWith("-") && !/^-\d/.test(arg);
}

/** Called after each await of a waiting call: a caller that was killed meanwhile ends it there. */
export function stillWanted(ctx: Ctx): void {
  if (ctx.gone?.()) throw new Abandoned("the caller is gone");
}

export function parseArgs(args: string[], def: CommandDef): Parsed {
  const out: Parsed = { pos: [], opts: {}, rest: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      const tail = args.slice(i + 1);
      if (def.rest) out.rest = tail;
      else out.pos.push(...tail);
      break;
    }
    if (!isOption(arg)) {
      out.pos.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const kind = def.opts[name];
    // herdr answers an option it does not know with the command's usage line.
    if (!kind) throw new UsageError(`usage: ${def.usage}`);
    if (kind === "flag") {
      if (eq > 0) throw new UsageError(`option ${name} takes no value`);
      out.opts[name] = true;
      continue;
    }
    let value: string;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= args.length) throw new UsageError(`option ${name} requires a value`);
      value = args[++i]!;
    }
    if (kind === "multi") out.opts[name] = [...((out.opts[name] as string[]) ?? []), value];
    else out.opts[name] = value;
  }
  if (out.pos.length < def.min || out.pos.length > def.max) throw new UsageError(`usage: ${def.usage}`);
  return out;
}

export function optStr(p: Parsed, name: string): string | undefined {
  const v = p.opts[name];
  return typeof v === "string" ? v : undefined;
}

export function optList(p: Parsed, name: string): string[] {
  const v = p.opts[name];
  return Array.isArray(v) ? v : [];
}

/** Integer option parsed client-side (a bad number is a usage error, or for `--lines` herdr's plain exit 1). */
export function optInt(p: Parsed, name: string): number | undefined {
  const v = optStr(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) {
    if (name === "--lines") throw new CliError(`Error: Custom { kind: Other, error: "invalid value for --lines: ${v}" }`);
    throw new UsageError(`invalid value '${v}' for '${name}': invalid digit found in string`);
  }
  return Number(v);
}

/** `--session X` / `--session=X` may appear anywhere before `--` and applies globally. */
export function stripSession(argv: string[]): { args: string[]; session?: string } {
  const args: string[] = [];
  let session: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      args.push(...argv.slice(i));
      break;
    }
    if (a === "--session") {
      if (i + 1 >= argv.length) throw new UsageError("option --session requires a value");
      session = argv[++i];
    } else if (a.startsWith("--session=")) session = a.slice("--session=".length);
    else args.push(a);
  }
  return { args, session };
}

/** Socket resolution order: --session, HERDR_SOCKET_PATH, HERDR_SESSION, default. */
export function socketPath(session: string | undefined, env: Record<string, string | undefined>): string {
  // The caller's HOME, as os.homedir() reads it; without one, the account's (the server's own, since
  // only its user can run the client).
  const home = env.HOME ?? userInfo().homedir;
  const base = join(env.XDG_CONFIG_HOME || join(home, ".config"), "herdr");
  const named = (name: string) => (name === "default" ? join(base, "herdr.sock") : join(base, "sessions", name, "herdr.sock"));
  if (session) return named(session);
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.HERDR_SESSION) return named(env.HERDR_SESSION);
  return join(base, "herdr.sock");
}

export function checkServer(s: FakeState, socket: string): void {
  if (s.server_running && s.shutting_down) {
    // The real server answers for a moment, then closes its socket: which a call meets is timing.
    if (s.shutdown_answered++ < 1) throw new ApiError("server_unavailable", "server is shutting down");
    throw new CliError('Error: Os { code: 104, kind: ConnectionReset, message: "Connection reset by peer" }');
  }
  if (!s.server_running) {
    throw new ApiError("server_not_running", `no herdr server is running at ${socket}; run \`herdr\` to start or attach it`);
  }
  if (s.protocol_mismatch) {
    throw new ApiError("protocol_mismatch", `client protocol ${s.protocol} is newer than server protocol ${s.protocol - 1}; restart the Herdr server to use this client`);
  }
}

const DEFAULT_MESSAGES: Record<string, string> = {
  agent_pane_busy: "pane is not an available shell",
  agent_prompt_stalled: "agent did not change state after the prompt",
  agent_blocked: "agent is blocked on a dialog; prompt not sent",
  agent_not_ready: "agent is showing a blocking screen",
  agent_not_idle: "agent is not idle; cannot scroll its history",
  agent_not_running: "agent is no longer running",
  server_not_running: "no herdr server is running",
  timeout: "timed out waiting for agent status",
};

export function failureMessage(f: QueuedFailure): string {
  return f.message ?? DEFAULT_MESSAGES[f.code] ?? `injected ${f.code}`;
}

/** Consumes one queued failure for this command (and target, when the failure names one). */
export function takeFailure(s: FakeState, command: string, target: string | undefined): QueuedFailure | undefined {
  const f = s.failures.find((x) => x.command === command && x.remaining > 0 && (x.target === undefined || x.target === target));
  if (!f) return undefined;
  f.remaining -= 1;
  s.failures = s.failures.filter((x) => x.remaining > 0);
  return { ...f };
}

/** Semver-ish comparison of dotted versions, ignoring a `-channel.build` suffix. */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (v: string) =>
    v
      .split("-")[0]!
      .split(".")
      .map((x) => Number(x) || 0);
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

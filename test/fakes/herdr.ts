// A fake `herdr` CLI for tests. It keeps herdr's observable contract (argv,
// JSON envelopes on stdout/stderr, exit codes, agent state model) on top of a
// state file named by FAKE_HERDR_STATE, which tests drive via herdr-control.ts.
// One call is `runHerdr` of what the caller's process had (argv, environment, cwd, pid): the
// server of herdr-serve.ts runs it for every client a test's PATH holds.
import { appendFileSync, existsSync } from "node:fs";
import { AGENT_COMMANDS } from "./herdr-agent.ts";
import {
  Abandoned,
  ApiError,
  CliError,
  UsageError,
  checkServer,
  failureMessage,
  parseArgs,
  socketPath,
  stillWanted,
  stripSession,
  takeFailure,
  versionAtLeast,
  type CommandDef,
  type Ctx,
  type Outcome,
} from "./herdr-cli.ts";
import { sortedJson } from "./herdr-info.ts";
import { loadState, withState, type FakeState } from "./herdr-state.ts";
import { TOPO_COMMANDS } from "./herdr-topo.ts";
import { SENT_ENV, type WireAnswer } from "./herdr-wire.ts";

/** One call of the fake, as its caller's process made it. */
export interface HerdrCall {
  argv: string[];
  /** The caller's variables of SENT_ENV (those it had set). */
  env: Record<string, string>;
  cwd: string;
  pid: number;
  /** The path the caller ran. */
  binary: string;
  /** True once the caller is gone (killed): a call still waiting stops there, as its process would have. */
  gone?: () => boolean;
}

/** Its exit code and the bytes of its stdout and stderr. */
export type HerdrAnswer = WireAnswer;

const COMMANDS: Record<string, CommandDef> = { ...TOPO_COMMANDS, ...AGENT_COMMANDS };
const GROUPS = ["workspace", "tab", "pane", "agent", "api"];
/** The agent facade arrived in 0.7.5; older CLIs reject these subcommands. */
const FACADE = ["agent start", "agent prompt", "agent send-keys", "agent wait"];

function groupUsage(group: string): string {
  const verbs = Object.keys(COMMANDS)
    .filter((k) => k.startsWith(`${group} `))
    .map((k) => k.slice(group.length + 1));
  return `usage: herdr ${group} <${verbs.join("|")}>`;
}

function serverStatus(s: FakeState, socket: string, session: string | undefined): Record<string, unknown> {
  const base = { socket, session: session ?? null };
  if (!s.server_running) {
    return { status: "not_running", running: false, version: null, protocol: null, capabilities: null, compatible: null, ...base, restart_needed: false };
  }
  const compatible = !s.protocol_mismatch;
  const out: Record<string, unknown> = {
    status: "running",
    running: true,
    version: s.version,
    protocol: compatible ? s.protocol : s.protocol - 1,
    capabilities: { live_handoff: true, detached_server_daemon: true },
    compatible,
    ...base,
    restart_needed: !compatible,
  };
  if (s.protocol >= 22) Object.assign(out, { endpoint_compatible: compatible, private_protocol: out.protocol, private_protocol_compatible: compatible });
  return out;
}

/** `status` answers without a server, which makes it the safe probe. */
function status(args: string[], s: FakeState, socket: string, session: string | undefined, binary: string): string {
  const json = args.includes("--json");
  const rest = args.filter((a) => a !== "--json");
  const bad = rest.find((a) => a.startsWith("-"));
  if (bad) throw new UsageError(`unknown option: ${bad}`);
  if (rest.length > 1 || (rest[0] !== undefined && rest[0] !== "server" && rest[0] !== "client")) {
    throw new UsageError("usage: herdr status [server|client] [--json]");
  }
  const server = serverStatus(s, socket, session);
  const client = { version: s.version, channel: "stable", protocol: s.protocol, binary, session: session ?? null };
  if (json) {
    const body = rest[0] === "server" ? server : rest[0] === "client" ? client : { client, server, update: { restart_needed: server.restart_needed } };
    return `${JSON.stringify(body)}\n`;
  }
  const fields = rest[0] === "client" ? client : server;
  const lines = Object.entries(fields)
    .filter(([k]) => k !== "capabilities" && k !== "running")
    .map(([k, v]) => `${k}: ${typeof v === "boolean" ? (v ? "yes" : "no") : (v ?? "-")}`);
  return `${lines.join("\n")}\n`;
}

/** The caller's environment, of which only SENT_ENV reaches the server: reading another name is a bug of the fake. */
function callEnv(given: Record<string, string>): Record<string, string | undefined> {
  const names: readonly string[] = SENT_ENV;
  return new Proxy(given, {
    get(target, key) {
      if (typeof key === "string" && /^[A-Z_][A-Z0-9_]*$/.test(key) && !names.includes(key)) throw new Error(`fake herdr reads ${key}, which its client does not send (SENT_ENV in herdr-wire.ts)`);
      return Reflect.get(target, key);
    },
  });
}

async function run(call: HerdrCall, env: Record<string, string | undefined>, statePath: string): Promise<string> {
  const { args, session } = stripSession(call.argv);
  const socket = socketPath(session, env);
  const first = args[0];
  if (first === undefined) throw new UsageError("fake herdr: refusing to launch the TUI; pass a command");
  if (first === "--version" || first === "-V") {
    if (args.length > 1) throw new UsageError(`unknown option: ${args[1]}`);
    return `herdr ${loadState(statePath).version}\n`;
  }
  if (first === "status") return status(args.slice(1), loadState(statePath), socket, session, call.binary);
  if (!GROUPS.includes(first)) throw new UsageError(`unknown command: ${first}`);
  const verb = args[1];
  if (verb === undefined) throw new UsageError(groupUsage(first));
  if (verb === "help" || verb === "--help") return `${groupUsage(first)}\n`;
  const key = `${first} ${verb}`;
  const def = COMMANDS[key];
  if (!def || (FACADE.includes(key) && !versionAtLeast(loadState(statePath).version, "0.7.5"))) {
    throw new UsageError(`unknown command: ${key}`);
  }
  const id = `cli:${first}:${verb}`;
  const p = parseArgs(args.slice(2), def);
  const ctx: Ctx = { id, statePath, socket, env, cwd: call.cwd, pid: call.pid, gone: call.gone };
  // A slow call (herdr's agent start may take 30 s): it returns only once the test opens its gate.
  // A held `agent start` registers its agent first, as herdr does, and waits inside its handler.
  const hold = key === "agent start" ? undefined : loadState(statePath).holds?.find((h) => h.command === key);
  while (hold && existsSync(hold.gate)) {
    await Bun.sleep(20);
    stillWanted(ctx);
  }
  try {
    // withState is synchronous: the state's flock is never held across an await, so calls that
    // wait (agent wait) never block the others the same server answers meanwhile.
    let outcome: Outcome = withState(statePath, (s, now) => {
      checkServer(s, socket);
      const f = takeFailure(s, key, p.pos[0]);
      if (f && !def.handles?.(f)) throw new ApiError(f.code, failureMessage(f));
      ctx.failure = f;
      return def.run(p, s, ctx, now);
    });
    while ("wait" in outcome) outcome = await outcome.wait();
    if ("json" in outcome) return `${sortedJson({ id, result: outcome.json })}\n`;
    return "text" in outcome ? outcome.text : "";
  } catch (e) {
    if (e instanceof ApiError) (e as ApiError & { id?: string }).id = id;
    throw e;
  }
}

/** One call: its exit code and the bytes of its stdout and stderr. */
export async function runHerdr(call: HerdrCall): Promise<HerdrAnswer> {
  const env = callEnv(call.env);
  const fail = (code: number, stderr: string): HerdrAnswer => ({ code, stdout: "", stderr });
  const log = env.FAKE_HERDR_LOG;
  try {
    // One short O_APPEND write per call, so concurrent lines never interleave.
    if (log) appendFileSync(log, `${JSON.stringify({ argv: call.argv, pid: call.pid, at: new Date().toISOString() })}\n`);
  } catch (e) {
    return fail(70, `fake herdr: cannot write the call log ${log}: ${String(e)}\n`);
  }
  const statePath = env.FAKE_HERDR_STATE;
  if (!statePath) return fail(2, "fake herdr: FAKE_HERDR_STATE is not set\n");
  try {
    return { code: 0, stdout: await run(call, env, statePath), stderr: "" };
  } catch (e) {
    if (e instanceof UsageError || e instanceof CliError) return fail(e instanceof UsageError ? 2 : 1, `${e.message}\n`);
    if (e instanceof ApiError) {
      const id = (e as ApiError & { id?: string }).id ?? "cli";
      const error = { code: e.code, message: e.message };
      // The server's errors come key-sorted; the client's own (no server) put the id first.
      return fail(1, `${e.code === "server_not_running" ? JSON.stringify({ id, error }) : sortedJson({ error, id })}\n`);
    }
    if (e instanceof Abandoned) return fail(70, "fake herdr: the caller is gone\n");
    return fail(70, `fake herdr: internal error: ${e instanceof Error ? e.stack : String(e)}\n`);
  }
}

/**
 * The herdr contract's two sides: the real herdr 0.8.2 (herdr-real.ts) and the fake
 * (fakes/herdr*.ts), each with the same scripted harness program in its panes, and vx's own client
 * (src/backends/herdr/client.ts) making every call, so what is compared is what vx parses. The program is
 * data (a ProgramDef): the real server runs it as a bash script named `claude` (so herdr takes it
 * for Claude Code and reads its screens with Claude Code's rules), the fake plays the same screens.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHerdrClient, type HerdrClient } from "../src/backends/herdr/client";
import { type Exec, type ExecResult, realExec } from "../src/exec";
import { beginServerStop, type FakeHerdrEnv, holdCommand, installFakeHerdr, type ProgramDef, type ProgramScreen, setProgram, startServer, stopServer } from "./fakes/herdr-control";
import { type RealHerdr, realHerdrBinary, startRealHerdr } from "./herdr-real";
import { sandboxPath } from "./tool-path";

const RULE = "─".repeat(40);

/** Claude Code's idle prompt box as herdr 0.8.2's claude rules read it (`❯` between two rules). */
function idle(first: string): ProgramScreen {
  return { title: "✳ scripted", status: "idle", rows: ["scripted claude", first, RULE, "❯ ", RULE, "  ? for shortcuts"] };
}

/**
 * The scripted harness: `${NAME}` is its environment (the server's, the tab's `--env`), `${INPUT}`
 * the input line. A line starting `mute` changes nothing; `ask` draws a permission dialog; any
 * other line is a turn: a working screen for 2.5 s, then the idle box again.
 */
export const SCRIPTED_CLAUDE: ProgramDef = {
  start: idle("env mark=${VX_CONTRACT_MARK} tab=${VX_CONTRACT_TAB}"),
  turns: [
    { prefix: "mute", screens: [] },
    {
      prefix: "ask",
      screens: [{ screen: { status: "blocked", rows: [" Bash command", " Do you want to proceed?", " ❯ 1. Yes", "   2. No", "", " Esc to cancel · Enter to confirm"] } }],
    },
    {
      prefix: "",
      screens: [
        { screen: { title: "⠂ scripted", status: "working", rows: ["scripted claude", "> ${INPUT}", "✻ Working… (3s · esc to interrupt)"] }, hold_ms: 2500 },
        { screen: idle("reply: ${INPUT}") },
      ],
    },
  ],
};

/** A bash double-quoted word: `${NAME}` expands, everything else is literal. */
function bashWord(text: string): string {
  const parts = text.split(/(\$\{[A-Za-z_][A-Za-z0-9_]*\})/);
  return `"${parts.map((p, i) => (i % 2 ? p : p.replace(/[\\"`$]/g, "\\$&"))).join("")}"`;
}

function draw(screen: ProgramScreen): string {
  const title = screen.title === undefined ? "" : `printf '\\033]0;%s\\007' ${bashWord(screen.title)}; `;
  return `printf '\\033[H\\033[2J'; ${title}printf '%s\\n' ${screen.rows.map(bashWord).join(" ")}`;
}

/** The program as the script the real herdr runs: it draws its screens itself, without echo. */
export function programScript(program: ProgramDef): string {
  const cases = program.turns.map((t) => {
    const body = t.screens.map((s) => `${draw(s.screen)}${s.hold_ms ? `; sleep ${s.hold_ms / 1000}` : ""}`).join("; ");
    return `    ${t.prefix ? `'${t.prefix.replace(/'/g, "'\\''")}'*` : "*"}) ${body || ":"} ;;`;
  });
  return [
    "#!/bin/bash",
    "# A scripted harness for the herdr contract test (test/herdr-contract-kit.ts).",
    "stty -echo 2>/dev/null",
    draw(program.start),
    "while IFS= read -r INPUT; do",
    '  case "$INPUT" in',
    ...cases,
    "  esac",
    "done",
    "",
  ].join("\n");
}

/**
 * A directory holding the program as `claude`, `stty` (the sandbox PATH lacks it) and the real
 * `herdr` (the server's PATH must find it to start).
 */
export function programDir(dir: string, program: ProgramDef): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "claude"), programScript(program), { mode: 0o755 });
  const stty = Bun.which("stty");
  if (stty) symlinkSync(stty, join(dir, "stty"));
  symlinkSync(realHerdrBinary(), join(dir, "herdr"));
  return dir;
}

export type Raw = ExecResult;
export type Ids = { workspace: string; tab: string; pane: string };

/** One side of the contract; every call vx makes goes through `client` (a fresh one per call). */
export interface Side {
  name: "real" | "fake";
  /** What vx would run herdr with (the caller's environment, not the server's). */
  env: Record<string, string>;
  /** vx's client over a recorder: the call's raw result is `last()`. */
  client(): { herdr: HerdrClient; last(): { argv: string[]; res: Raw } | undefined };
  /** Runs a raw herdr argv (for calls vx never makes, like setting up a workspace). */
  run(argv: string[]): Promise<Raw>;
  workspace(cwd: string): Promise<Ids>;
  /** Holds the next `agent start` in its launch (the fake); the real one takes seconds on its own. */
  holdStart(): { release(): void };
  /** Stops the server, calling `during` while it is stopping. */
  stop(during: () => Promise<void>): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

function recorder(): Exec & { calls: { argv: string[]; res: Raw }[] } {
  const calls: { argv: string[]; res: Raw }[] = [];
  return {
    calls,
    async run(argv, opts) {
      const res = await realExec.run(argv, opts);
      calls.push({ argv, res });
      return res;
    },
  };
}

function clientOver(env: Record<string, string>): ReturnType<Side["client"]> {
  const rec = recorder();
  return { herdr: createHerdrClient({ exec: rec, env }), last: () => rec.calls.at(-1) };
}

function parseIds(res: Raw, what: string): Ids {
  if (res.code !== 0) throw new Error(`${what} failed: ${res.stderr}`);
  const r = JSON.parse(res.stdout).result;
  return { workspace: r.workspace.workspace_id, tab: r.root_pane.tab_id, pane: r.root_pane.pane_id };
}

/** The environment the server (real or fake) runs with; a caller's `VX_CONTRACT_MARK` differs. */
export function serverEnv(progDir: string): Record<string, string> {
  return { PATH: sandboxPath(progDir), VX_CONTRACT_MARK: "server" };
}

/** What both sides share: vx's client and raw calls under the caller's environment. */
function common(name: Side["name"], env: Record<string, string>): Pick<Side, "name" | "env" | "client" | "run" | "workspace"> {
  const run = (argv: string[]) => realExec.run(argv, { env });
  return {
    name,
    env,
    client: () => clientOver(env),
    run,
    async workspace(cwd) {
      return parseIds(await run(["herdr", "workspace", "create", "--cwd", cwd, "--label", "vx-contract"]), "workspace create");
    },
  };
}

export async function realSide(progDir: string, callerHome: string): Promise<Side> {
  const h: RealHerdr = await startRealHerdr({ env: serverEnv(progDir) });
  const side = common("real", { HOME: callerHome, PATH: h.env.PATH, HERDR_SOCKET_PATH: h.socket, VX_CONTRACT_MARK: "caller" });
  return {
    ...side,
    holdStart: () => ({ release() {} }),
    async stop(during) {
      // Asynchronously, so the calls `during` makes meet the server while it shuts down.
      const stopping = side.run(["herdr", "server", "stop"]);
      await during();
      await stopping;
      await h.halt();
    },
    restart: () => h.restart(),
    dispose: () => h.stop(),
  };
}

export async function fakeSide(binDir: string, progDir: string, callerHome: string): Promise<Side> {
  const fh: FakeHerdrEnv = installFakeHerdr(binDir, { serverEnv: serverEnv(progDir) });
  setProgram(fh, "claude", SCRIPTED_CLAUDE);
  return {
    ...common("fake", { HOME: callerHome, PATH: fh.PATH, FAKE_HERDR_STATE: fh.FAKE_HERDR_STATE, FAKE_HERDR_LOG: fh.FAKE_HERDR_LOG, VX_CONTRACT_MARK: "caller" }),
    holdStart: () => holdCommand(fh, "agent start"),
    async stop(during) {
      beginServerStop(fh);
      await during();
      stopServer(fh);
    },
    async restart() {
      startServer(fh);
    },
    async dispose() {},
  };
}

const VALUE_KEYS = new Set([
  "id",
  "type",
  "agent",
  "agent_status",
  "name",
  "focused",
  "interactive_ready",
  "launch_pending",
  "code",
  "workspace_id",
  "tab_id",
  "pane_id",
  "label",
  "cwd",
  "foreground_cwd",
  "running",
  "status",
  "version",
  "protocol",
  "compatible",
  "restart_needed",
  "terminal_title",
  "terminal_title_stripped",
  "argv",
  "number",
  "pane_count",
]);

/**
 * The shape vx depends on: every key (in order where herdr does not sort them), the value of the
 * keys vx branches on or that must agree (ids, statuses, kinds, titles), the type of the rest.
 */
export function shape(v: unknown, key = ""): unknown {
  if (Array.isArray(v)) return key === "argv" ? v : v.map((x) => shape(x));
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shape(x, k)]));
  }
  if (VALUE_KEYS.has(key)) return v;
  return v === null ? "null" : typeof v;
}

/** A raw result as compared: exit code, the JSON's shape (with key order) or the text. */
export function rawShape(res: Raw): Record<string, unknown> {
  const out: Record<string, unknown> = { exit: res.code };
  for (const [k, text] of [
    ["stdout", res.stdout],
    ["stderr", res.stderr],
  ] as const) {
    if (!text) continue;
    try {
      const doc = JSON.parse(text);
      out[k] = shape(doc);
      out[`${k}Keys`] = Object.keys(doc);
    } catch {
      out[k] = text;
    }
  }
  return out;
}

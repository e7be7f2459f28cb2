// `vx resume` on the real harnesses (issue 17 item 2, CMD-RESUME-01): a tmux soldier writes a file
// it does not commit and starts a shell command that holds (its turn in flight), then its harness
// process tree is killed with SIGKILL (the pane's pid, verified as the harness by its command line,
// and its descendants). The sentinel settles the task `interrupted`. A second soldier (the decoy)
// then runs in another camp of the same repository, so the newest session of the project is not
// the interrupted one's: `vx resume <id> "go on"` must pick the camp's own. The mock model's next
// request for the resumed soldier carries "go on", the interrupted soldier's earlier prompt (its
// conversation came back) and not the decoy's; the uncommitted file is still in the same camp.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { vx, waitFor } from "../helpers";
import { claudeEnv, seedClaude } from "./claude-setup";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import { COPILOT_MODEL, copilotEnv, seedCopilot } from "./copilot-setup";
import { geminiEnv, seedGemini } from "./gemini-setup";
import type { HarnessName } from "./harnesses";
import { seedOpencode } from "./opencode-setup";
import { PI_ENV, seedPi } from "./pi-setup";
import { isToolResult } from "./soldier-kit";
import { type Fleet, fleet, settles, shellCall, workFile } from "./tmux-fleet";

const RESUMED = "go on";
const PICKED_UP = "Picked up where I left off.";

type Spec = {
  harness: HarnessName;
  setup: Parameters<typeof fleet>[1];
  warm?: boolean;
  close?: (f: Fleet) => void;
  /**
   * The decoy's harness is ended before the resume, so a continue that skips sessions still in use
   * would take the decoy's (then the newest idle one) and show it.
   */
  endDecoy?: boolean;
  /** The transcripts of the harness's sessions, where all camps share one store (newest last). */
  transcripts?: (f: Fleet) => string[];
};

/** Copilot keeps every session under `$COPILOT_HOME/session-state/<id>/events.jsonl`, by last write. */
function copilotTranscripts(f: Fleet): string[] {
  const dir = join(f.env.COPILOT_HOME!, "session-state");
  return readdirSync(dir)
    .map((id) => join(dir, id, "events.jsonl"))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((p) => readFileSync(p, "utf8"));
}

// Real time (a 30 s readiness wait): a loaded machine started Claude Code past tmux-fleet's 7.5 s.
const REAL = { VX_TIME_SCALE: "1" };

const SPECS: Spec[] = [
  { harness: "claude", setup: { env: REAL, prepare: (x) => (seedClaude(x.home, []), claudeEnv(x.models.url)) } },
  { harness: "codex", setup: { env: REAL, prepare: (x) => seedCodex(x.home, x.project, x.models.url) }, close: (f) => stopCodexDaemon(f.exe, f.env) },
  { harness: "pi", setup: { env: { ...PI_ENV, ...REAL }, prepare: (x) => seedPi(x.home, x.models.url) } },
  // OpenCode's first start with a plugin installs packages, and its TUI is slow to draw
  // (tmux-soldiers.test.ts); on a machine loaded 10 times over it did not draw within 90 s, so it
  // runs at 6 (a 180 s readiness wait).
  { harness: "opencode", setup: { env: { VX_TIME_SCALE: "6" }, prepare: (x) => seedOpencode(x.home, x.models.url) }, warm: true },
  // Both start slowly (tmux-soldiers.test.ts, copilot-tmux.test.ts): Gemini CLI at 3 (a 90 s
  // readiness wait), Copilot at 1.5 (45 s). Gemini CLI keeps its sessions under the soldier's own
  // GEMINI_CLI_HOME, by project; Copilot's are all in the one COPILOT_HOME, the decoy's too.
  { harness: "gemini", setup: { env: { VX_TIME_SCALE: "3" }, prepare: (x) => (seedGemini(x.home), geminiEnv(x.models.url)) } },
  {
    harness: "copilot",
    setup: { env: { VX_TIME_SCALE: "1.5", COPILOT_MODEL }, prepare: (x) => (seedCopilot(x.home, []), copilotEnv(x.home, x.models.url)) },
    endDecoy: true,
    transcripts: copilotTranscripts,
  },
];

/** The pids of `root` and every process below it. */
function tree(root: number): number[] {
  const env = { ...process.env };
  delete env.COLUMNS;
  const rows = Bun.spawnSync(["ps", "-ww", "-eo", "pid=,ppid="], { env, stdout: "pipe" })
    .stdout.toString()
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of rows) if (ppid === out[i] && !out.includes(pid)) out.push(pid);
  return out;
}

/** SIGKILLs the harness of `session` and its descendants; the pane's pid is verified as the harness first. */
function killNine(f: Fleet, session: string): number {
  const pid = Number(f.tmuxd("display-message", "-p", "-t", `=${session}:`, "#{pane_pid}").out.trim());
  const env = { ...process.env };
  delete env.COLUMNS;
  const args = Bun.spawnSync(["ps", "-ww", "-o", "args=", "-p", String(pid)], { env, stdout: "pipe" }).stdout.toString();
  if (!(pid > 0) || !args.includes(f.harness)) throw new Error(`session ${session}'s pane process ${pid} is not ${f.harness}: ${args.trim()}`);
  for (const p of tree(pid)) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  return pid;
}

/** OPENCODE_CONFIG_CONTENT naming a plugin that does nothing, started once so the install is done. */
async function warmOpencode(f: Fleet): Promise<void> {
  const path = join(dirname(f.home), "warm-plugin", "noop.ts");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "export const Noop = async () => ({});\n");
  const dir = join(dirname(f.home), "warm");
  mkdirSync(dir, { recursive: true });
  const env = [`OPENCODE_CONFIG_CONTENT=${JSON.stringify({ plugin: [pathToFileURL(path).href] })}`];
  f.tmuxd("new-session", "-d", "-s", "warm", "-x", "220", "-y", "50", "-c", dir, "--", "env", ...env, f.exe);
  await waitFor(() => /Ask anything/.test(f.screen("warm")), 480_000, "opencode to start once").catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${f.screen("warm")}`);
  });
  f.tmuxd("kill-session", "-t", "=warm");
}

for (const spec of SPECS) {
  const h = spec.harness;
  describe(`vx resume: ${h} on tmux`, () => {
    let f: Fleet;
    beforeAll(async () => {
      f = await fleet(h, spec.setup);
      if (spec.warm) await warmOpencode(f);
    });
    afterAll(async () => {
      if (f) spec.close?.(f);
      await f?.closeFleet();
    });

    test("a soldier killed -9 mid-turn comes back in its camp with its conversation and its uncommitted file", async () => {
      const file = workFile("alpha");
      const alpha = f.mission("alpha", "write the draft file and keep working on it", (r) =>
        r.lastUser.includes(RESUMED)
          ? { text: PICKED_UP }
          : isToolResult(r)
            ? { text: "The draft is written." }
            : { tool: shellCall(h, `printf 'draft\\n' > ${file} && while [ ! -e '${f.gate("alpha")}' ]; do sleep 0.1; done`) },
      );
      const d = await f.dispatch(alpha);
      expect(d.stdout).toContain("status=running");
      await waitFor(() => existsSync(join(d.camp, file)), 60_000, "the soldier's uncommitted file");
      const pid = killNine(f, d.session);
      await waitFor(() => !f.hasSession(d.session), 30_000, "the session to close with its harness");
      // The not-found window (10 s) and the poll (5 s) scale with the fleet's VX_TIME_SCALE.
      const interrupted = await settles(f, d, "interrupted", 40_000 + 20_000 * Number(f.env.VX_TIME_SCALE));
      console.log(`compat: ${h} resume: harness pid ${pid} killed -9 mid-turn, task ${interrupted.status}`);

      // A newer session of the same repository, in another camp.
      const decoy = f.mission("bravo", "say hello", () => ({ text: "Hello." }));
      const b = await f.dispatch(decoy);
      await waitFor(() => decoy.replies.length > 0, 60_000, "the decoy's reply");
      expect(b.camp).not.toBe(d.camp);
      if (spec.endDecoy) {
        f.killHarness(b.session);
        await waitFor(() => !f.hasSession(b.session), 30_000, "the decoy's session to close with its harness");
      }
      if (spec.transcripts) {
        // One store for every camp: the decoy's session is the newest, so a resume of "the last
        // session" that ignored the camp would carry the decoy's conversation.
        const all = spec.transcripts(f);
        expect({ sessions: all.length, newestIsDecoy: all.at(-1)?.includes(decoy.prompt) }).toEqual({ sessions: 2, newestIsDecoy: true });
      }

      const t0 = Date.now();
      const r = await vx(["resume", d.id, RESUMED], { cwd: f.project, env: f.env });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      const t = f.task(d.id);
      expect(r.stdout).toContain(`tmux: session=${t.tmux_target} cwd=${d.camp} branch=vexillum/${d.id} gate=ok`);
      expect(t).toMatchObject({ camp_path: d.camp, resumes: 1 });
      // Whichever conversation the harness continued: what it carries is printed, then checked.
      const req = await waitFor(() => f.models.turns().find((x) => x.at >= t0 && x.lastUser.includes(RESUMED)), 90_000, "the resumed soldier's request").catch((err) => {
        // The pane says why (a prompt left in its box, a dialog, a harness still starting).
        throw new Error(`${(err as Error).message}\n--- screen ---\n${f.screen(t.tmux_target as string, 60)}`);
      });
      const body = JSON.stringify(req.body);
      const history = {
        earlierPrompt: body.includes(alpha.prompt),
        earlierToolCall: body.includes(file),
        decoy: body.includes("(bravo)"),
      };
      console.log(`compat: ${h} resume: resume -> model request ${req.at - t0} ms; the request carries ${JSON.stringify(history)}`);
      expect(history).toEqual({ earlierPrompt: true, earlierToolCall: true, decoy: false });
      expect(readFileSync(join(d.camp, file), "utf8")).toBe("draft\n");
      await waitFor(() => alpha.replies.some((x) => x.reply.text === PICKED_UP), 30_000, "the reply to the resumed turn");
    });
  });
}

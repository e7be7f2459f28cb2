// Real soldiers on the real herdr 0.8.2 (issue 24): `vx dispatch --backend herdr` from a
// commander's herdr pane starts each harness (Claude Code, Codex, Pi, OpenCode, Gemini CLI,
// Copilot CLI) in a fresh camp with default settings, so its folder-trust dialog shows as a user
// sees it, and the sentinel vx started settles it. Per harness:
// the dispatcher's environment reaches the soldier (a variable only the commander's pane exported)
// and no command line ever holds it; the first prompt reaches the model exactly once, after the
// trust dialog was answered, never typed into it; a mission that commits settles done with a wake;
// `vx prompt` reaches the finished soldier; land; a needs-decision line settles blocked and
// `vx decide` delivers the answer; strike; the harness killed mid-turn settles interrupted with a
// wake, and `vx resume` continues its conversation. Dispatch times are printed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { NOTE_AGENT_GONE } from "../../src/backends/herdr";
import { procEnviron } from "../../src/procs";
import { git, vx, waitFor } from "../helpers";
import { claudeEnv, seedClaude } from "./claude-setup";
import { seedCodex, stopCodexDaemon, untrusted } from "./codex-setup";
import { COPILOT_MODEL, copilotEnv, seedCopilot } from "./copilot-setup";
import { geminiEnv, seedGemini } from "./gemini-setup";
import { seedOpencode } from "./opencode-setup";
import { PI_ENV, seedPi } from "./pi-setup";
import { ANSWER, FINAL, QUESTION, type Dispatched, commitAndHold, finishMission, shellCall, wakeSeen } from "./fleet";
import type { HarnessName } from "./harnesses";
import { type HerdrFleet, herdrFleet, settles } from "./herdr-fleet";
import type { LoggedRequest } from "./mock-models";
import { isToolResult } from "./soldier-kit";
import { requestWith } from "./world";

const FOLLOW_UP = "add a note to the work file";
const RESUMED = "go on";

type Spec = {
  harness: HarnessName;
  setup: Parameters<typeof herdrFleet>[1];
  /** Run once before the first dispatch. */
  warm?: (f: HerdrFleet) => void;
  close?: (f: HerdrFleet) => void;
  /** Whether the harness recorded trust after vx answered its folder-trust dialog (one that shows one). */
  trusted?: (f: HerdrFleet) => boolean;
};

const SPECS: Spec[] = [
  // Nothing trusted beforehand: each dispatch's camp shows the folder-trust dialog.
  {
    harness: "claude",
    setup: { prepare: (x) => (seedClaude(x.home, []), claudeEnv(x.models.url)) },
    trusted: (f) =>
      Object.values(JSON.parse(readFileSync(join(f.home, ".claude.json"), "utf8")).projects ?? {}).some((p) => (p as { hasTrustDialogAccepted?: boolean }).hasTrustDialogAccepted === true),
  },
  {
    harness: "codex",
    setup: { prepare: (x) => untrusted(seedCodex(x.home, x.project, x.models.url)) },
    // The app-server daemon a first Codex TUI starts (and every later one uses) made that first
    // start outlast the readiness wait here: started beforehand, as on a machine that ran Codex before.
    warm: (f) => void Bun.spawnSync([f.exe, "app-server", "daemon", "start"], { env: f.env, stdout: "ignore", stderr: "ignore", timeout: 60_000 }),
    close: (f) => stopCodexDaemon(f.exe, f.env),
    trusted: (f) => /trust_level = "trusted"/.test(readFileSync(join(f.env.CODEX_HOME!, "config.toml"), "utf8")),
  },
  // No folder-trust dialog (Pi has none; HRD-04's flags skip Gemini CLI's and Copilot CLI's).
  { harness: "pi", setup: { env: PI_ENV, prepare: (x) => seedPi(x.home, x.models.url) } },
  // Slow to draw (tmux-soldiers.test.ts, copilot-tmux.test.ts): OpenCode and Copilot CLI at 1.5 (a
  // 45 s readiness wait), Gemini CLI at 3 (90 s).
  { harness: "opencode", setup: { env: { VX_TIME_SCALE: "1.5" }, prepare: (x) => seedOpencode(x.home, x.models.url) } },
  { harness: "gemini", setup: { env: { VX_TIME_SCALE: "3" }, prepare: (x) => (seedGemini(x.home), geminiEnv(x.models.url)) } },
  {
    harness: "copilot",
    setup: { env: { VX_TIME_SCALE: "1.5", COPILOT_MODEL }, prepare: (x) => (seedCopilot(x.home, []), copilotEnv(x.home, x.models.url)) },
  },
];

const ms = (t: number) => `${Math.round(t)} ms`;

/** How many times `text` is in the conversation a request carries (a prompt typed twice shows twice). */
function timesIn(r: LoggedRequest, text: string): number {
  return JSON.stringify(r.body).split(text).length - 1;
}

/** Every process's command line holding `secret`, sampled until stopped (the dispatch's herdr calls included). */
function secretWatch(secret: string) {
  const seen = new Set<string>();
  const timer = setInterval(() => {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
        if (cmd.includes(secret)) seen.add(cmd.replaceAll("\0", " "));
      } catch {
        // gone meanwhile
      }
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return [...seen];
    },
  };
}

/** `vx strike` from the project: exit 0, and the soldier's tab is gone. */
async function strike(f: HerdrFleet, d: Dispatched): Promise<void> {
  f.stopSampling(d.id);
  const tab = f.task(d.id).herdr_tab_id;
  const r = await vx(["strike", d.id], { cwd: f.project, env: f.env });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect(f.tabIds()).not.toContain(tab);
}

for (const spec of SPECS) {
  const h = spec.harness;
  describe(`${h} soldiers on the real herdr`, () => {
    let f: HerdrFleet;
    beforeAll(async () => {
      f = await herdrFleet(h, spec.setup);
      spec.warm?.(f);
    });
    afterAll(async () => {
      if (f) spec.close?.(f);
      await f?.closeFleet();
    });

    test("dispatch: the pane's environment and trust dialog, one first prompt, done with a wake; prompt; land", async () => {
      const secret = `sk-compat-${crypto.randomUUID()}`;
      f.env.COMPAT_PANE_EXPORT = secret;
      const m = f.mission("alpha", "write the work file and commit it", (r) => {
        if (r.lastUser.includes(FOLLOW_UP)) return { text: "Noted." };
        return isToolResult(r) ? { text: FINAL } : { tool: shellCall(h, commitAndHold(f, "alpha")) };
      });
      const watch = secretWatch(secret);
      const alpha = await f.dispatch(m).finally(() => watch.stop());
      expect(watch.stop()).toEqual([]);
      expect(alpha.stdout).toContain("status=running");
      const t = f.task(alpha.id);
      expect(alpha.stdout).toContain(`herdr: workspace=${f.commander.workspace} tab=${t.herdr_tab_id} pane=${t.herdr_pane_id} agent=${alpha.session}`);
      await waitFor(() => git(alpha.camp, "log", "-1", "--format=%s") === "work", 60_000, "the soldier's commit");
      // Exported only in the commander's pane: the herdr server never had it. (Read from the
      // harness process: Codex gives its shell tool only part of its own environment.)
      expect(procEnviron(f.harnessPid(alpha))?.COMPAT_PANE_EXPORT).toBe(secret);
      if (spec.trusted) expect(spec.trusted(f)).toBe(true);
      const { wakeAt, last } = await finishMission(f, m, alpha, (d, s, t) => settles(f, d, s, t));
      expect(JSON.parse(readFileSync(f.wakePath(alpha.id), "utf8"))).toMatchObject({ task_id: alpha.id, new_status: "done" });
      // Exactly once: the last request of the mission's turn holds its prompt once.
      const turn = f.models.turns().filter((r) => r.at <= last.at && timesIn(r, m.prompt) > 0);
      expect(turn.length).toBeGreaterThan(0);
      expect(Math.max(...turn.map((r) => timesIn(r, m.prompt)))).toBe(1);
      console.log(`compat: ${h} herdr soldier: dispatch ${ms(alpha.ms)} (returned running); last reply -> wake ${ms(wakeAt - last.at)} (VX_TIME_SCALE=${f.env.VX_TIME_SCALE})`);

      const t0 = Date.now();
      const p = await vx(["prompt", alpha.id, FOLLOW_UP], { cwd: f.project, env: f.env });
      expect({ code: p.code, stderr: p.stderr }).toEqual({ code: 0, stderr: "" });
      await requestWith(f, FOLLOW_UP, t0, 60_000);
      await settles(f, alpha, "done", 90_000);
      expect(f.dirt(alpha.id)).toEqual([]);

      f.stopSampling(alpha.id);
      const land = await vx(["land", alpha.id], { cwd: f.project, env: f.env });
      expect({ code: land.code, stderr: land.stderr }).toEqual({ code: 0, stderr: "" });
      expect(f.tabIds()).not.toContain(t.herdr_tab_id);
      expect(git(f.project, "log", "-1", "--format=%s")).toBe("work");
      expect(f.task(alpha.id).status).toBe("done");
    });

    test("a needs-decision line settles blocked; vx decide delivers the answer; strike closes its tab", async () => {
      const m = f.mission("bravo", "choose a colour for the work", (r) =>
        r.lastUser.includes(ANSWER) ? { text: "Going with green." } : { text: `I need one choice first.\nneeds-decision: ${QUESTION}` },
      );
      const bravo = await f.dispatch(m);
      const blocked = await settles(f, bravo, "blocked");
      expect(blocked.decision).toMatchObject({ question: QUESTION, kind: "prose" });
      const t0 = Date.now();
      const r = await vx(["decide", bravo.id, ANSWER], { cwd: f.project, env: f.env });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      await requestWith(f, ANSWER, t0, 60_000);
      await waitFor(() => f.task(bravo.id).status !== "blocked" || undefined, 30_000, "the task to leave blocked");
      expect(f.dirt(bravo.id)).toEqual([]);
      await strike(f, bravo);
    });

    test("the harness killed mid-turn settles interrupted with a wake; vx resume continues its conversation", async () => {
      const m = f.mission("charlie", "run the long job", (r) =>
        r.lastUser.includes(RESUMED) ? { text: "Picked up where I left off." } : { tool: shellCall(h, `while [ ! -e '${f.gate("charlie")}' ]; do sleep 0.1; done`) },
      );
      const charlie = await f.dispatch(m);
      expect(charlie.stdout).toContain("status=running");
      await waitFor(() => m.replies.length > 0, 60_000, "the held tool call");
      const woke = wakeSeen(f, charlie.id, 60_000);
      const t0 = Date.now();
      f.killHarness(charlie);
      const t = await settles(f, charlie, "interrupted");
      expect(t.output).toContain(NOTE_AGENT_GONE);
      console.log(`compat: ${h} herdr soldier: harness killed -> wake ${ms((await woke) - t0)}`);

      // Whatever the harness left of its held command ends (Codex resumes its turn where it stopped).
      f.open("charlie");
      const r0 = Date.now();
      const r = await vx(["resume", charlie.id, RESUMED], { cwd: f.project, env: f.env });
      if (r.code !== 0) throw new Error(`vx resume failed (exit ${r.code}): ${r.stderr}\n--- screen ---\n${f.screen(charlie)}`);
      expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
      const req = await requestWith(f, RESUMED, r0, 90_000).catch((err) => {
        throw new Error(`${(err as Error).message}\n--- screen ---\n${f.screen(charlie)}`);
      });
      // Its own conversation came back: the first prompt is in the resumed request.
      expect(timesIn(req, m.prompt)).toBeGreaterThan(0);
      expect(f.dirt(charlie.id)).toEqual([]);
      await strike(f, charlie);
    });
  });
}

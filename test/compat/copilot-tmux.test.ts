// Real GitHub Copilot CLI soldiers on the tmux backend (HRN-02), as tmux-soldiers.test.ts runs the
// other harnesses: `vx dispatch --harness copilot --backend tmux` starts copilot 1.0.102 in fresh
// camps against the mock model (its "bring your own key" provider, copilot-setup.ts), with nothing
// trusted beforehand (COPILOT_ALLOW_ALL=true from the harness module skips the folder-trust
// dialog), and the auto-started sentinel settles them from the plugin hooks and the pane. A
// mission that commits from the bash tool settles done; a needs-decision line settles blocked;
// the harness killed mid-turn settles interrupted. No permission-dialog test: dispatch passes
// `--allow-all`, which approves every tool, path and URL, so a soldier never sees one
// (copilot-smoke.test.ts shows the dialog reported blocked when started without it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NOTE_TMUX_GONE } from "../../src/backends/tmux";
import { git, vx, waitFor } from "../helpers";
import { COPILOT_MODEL, copilotEnv, seedCopilot } from "./copilot-setup";
import { isToolResult } from "./soldier-kit";
import { type Dispatched, type Fleet, commitAndHold, fleet, settles, shellCall, wakeSeen } from "./tmux-fleet";

const FINAL = "Wrote the work file and committed it.";
const QUESTION = "paint the work blue or green?";
const ms = (t: number) => `${Math.round(t)} ms`;

async function strike(f: Fleet, d: Dispatched): Promise<void> {
  f.stopSampling(d.id);
  const r = await vx(["strike", d.id], { cwd: f.project, env: f.env });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect(f.hasSession(d.session)).toBe(false);
}

describe("copilot soldiers on tmux", () => {
  let f: Fleet;
  beforeAll(async () => {
    // Copilot took 16-31 s from start to its input box on this loaded machine, over the 7.5 s
    // readiness wait at the fleet's scale: it runs at 1.5 (a 45 s readiness wait), as OpenCode does.
    f = await fleet("copilot", {
      env: { VX_TIME_SCALE: "1.5", COPILOT_MODEL },
      prepare: (x) => (seedCopilot(x.home, []), copilotEnv(x.home, x.models.url)),
    });
  });
  afterAll(async () => {
    await f?.closeFleet();
  });

  test("a mission that commits from the bash tool settles done with its last reply in output, and wakes the commander", async () => {
    const m = f.mission("alpha", "write the work file and commit it", (r) => (isToolResult(r) ? { text: FINAL } : { tool: shellCall("copilot", commitAndHold(f, "alpha")) }));
    const alpha = await f.dispatch(m);
    expect(alpha.stdout).toContain("status=running");
    expect(alpha.stdout).toContain(`tmux: session=${alpha.session} cwd=${alpha.camp}`);
    await waitFor(() => git(alpha.camp, "log", "-1", "--format=%s") === "work", 90_000, "the soldier's commit");
    expect(f.task(alpha.id).status).toBe("running");
    const woke = wakeSeen(f, alpha.id, 120_000);
    f.open("alpha");
    const done = await settles(f, alpha, "done", 120_000);
    const wakeAt = await woke;
    expect(m.replies.at(-1)!.reply.text).toBe(FINAL);
    expect(done.output).toContain(FINAL);
    const idle = JSON.parse(readFileSync(join(f.stateDir, "states", `${alpha.id}.json`), "utf8"));
    expect(idle).toMatchObject({ state: "idle", source: "copilot" });
    expect(JSON.parse(readFileSync(f.wakePath(alpha.id), "utf8"))).toMatchObject({ task_id: alpha.id, new_status: "done" });
    console.log(`compat: copilot tmux soldier: dispatch ${ms(alpha.ms)}; last reply -> wake ${ms(wakeAt - m.replies.at(-1)!.at)}`);
    expect(f.dirt(alpha.id)).toEqual([]);
    f.stopSampling(alpha.id);
    const land = await vx(["land", alpha.id], { cwd: f.project, env: f.env });
    expect({ code: land.code, stderr: land.stderr }).toEqual({ code: 0, stderr: "" });
    expect(f.hasSession(alpha.session)).toBe(false);
    expect(git(f.project, "log", "-1", "--format=%s")).toBe("work");
  });

  test("a needs-decision line settles blocked with the question", async () => {
    const m = f.mission("bravo", "choose a colour for the work", () => ({ text: `I need one choice first.\nneeds-decision: ${QUESTION}` }));
    const bravo = await f.dispatch(m);
    const blocked = await settles(f, bravo, "blocked", 120_000);
    expect(blocked.decision).toMatchObject({ question: QUESTION, kind: "prose" });
    expect(f.dirt(bravo.id)).toEqual([]);
    await strike(f, bravo);
  });

  test("the harness killed mid-turn settles interrupted, with a wake", async () => {
    const m = f.mission("charlie", "run the long job", () => ({ tool: shellCall("copilot", `while [ ! -e '${f.gate("charlie")}' ]; do sleep 0.1; done`) }));
    const charlie = await f.dispatch(m);
    expect(charlie.stdout).toContain("status=running");
    await waitFor(() => m.replies.length > 0, 60_000, "the held tool call");
    const woke = wakeSeen(f, charlie.id, 90_000);
    f.killHarness(charlie.session);
    await waitFor(() => !f.hasSession(charlie.session), 30_000, "the session to close with its harness");
    const t = await settles(f, charlie, "interrupted", 90_000);
    expect(t.output).toContain(NOTE_TMUX_GONE);
    await woke;
    expect(f.dirt(charlie.id)).toEqual([]);
    await strike(f, charlie);
  });
});

// `vx prompt` and `vx decide` reaching tmux soldiers: one paste for text, one key for an option,
// `working` recorded first; a gone session is interrupted with the tmux note; a dialog refuses text.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { waitFor } from "../helpers";
import { seedTask } from "./soldier-field";
import { RAW_HARNESS, tmuxField } from "./tmux-field";

type TF = Awaited<ReturnType<typeof tmuxField>>;

/** A finished tmux soldier: a live session running `harness` in its camp, and its task. */
async function tmuxSoldier(f: TF, over: Parameters<typeof seedTask>[1] = {}) {
  const seeded = await seedTask(f, { backend: "tmux", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined, ...over });
  // As a launch makes it: the task's id in the session's environment.
  expect(f.tmux("new-session", "-d", "-s", "vx-s", "-c", seeded.task.camp_path!, "-e", `VX_TASK_ID=${seeded.task.id}`, "--", join(f.bin, "claude")).code).toBe(0);
  await waitFor(() => screen(f).includes("❯"), 10_000, "the harness");
  return seeded.task;
}
const screen = (f: TF) => f.tmux("capture-pane", "-p", "-J", "-t", "=vx-s:", "-S", "-200").out;
const state = (f: TF, id: string) => JSON.parse(readFileSync(join(f.paths.statesDir, `${id}.json`), "utf8"));

describe("vx prompt and vx decide on tmux soldiers", () => {
  test("prompt: pasted once into the session, working recorded, running", async () => {
    await using f = await tmuxField();
    const t = await tmuxSoldier(f, { status: "done" });
    writeSoldierState(f.paths, { task_id: t.id, state: "idle", at: new Date().toISOString() });
    const r = await f.run(["prompt", t.id, "also update the changelog"]);
    expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toBe(`status=running\nprompted task ${t.id}, now running\n`);
    await waitFor(() => screen(f).includes("also update the changelog"), 10_000, "the pasted prompt");
    expect(screen(f).split("also update the changelog").length - 1).toBe(1);
    expect(state(f, t.id).state).toBe("working");
  });

  test("prompt to a session that is gone: interrupted with the tmux note", async () => {
    await using f = await tmuxField();
    const { task } = await seedTask(f, { status: "done", backend: "tmux", tmux_target: "vx-gone", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    const r = await f.run(["prompt", task.id, "more"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`task ${task.id}'s tmux pane is gone, so the prompt was not delivered`);
    expect(f.task(task.id)).toMatchObject({ status: "interrupted" });
    expect(f.task(task.id).output).toContain("[vexillum] this soldier's tmux pane was already gone when 'vx prompt' tried to reach it");
  });

  test("decide: a modal option is pressed by its digit; a prose answer is pasted", async () => {
    await using f = await tmuxField(RAW_HARNESS);
    const asked = new Date().toISOString();
    const t = await tmuxSoldier(f, { status: "blocked", decision: { question: "Apply the migration?", options: ["Yes", "No"], asked_at: asked, kind: "modal" } });
    writeSoldierState(f.paths, { task_id: t.id, state: "blocked", at: asked });
    let r = await f.run(["decide", t.id, "no"]);
    expect({ code: r.code, out: r.stdout }).toEqual({ code: 0, out: `status=running\nanswered task ${t.id}, now running\n` });
    await waitFor(() => screen(f).includes("❯ \n2") || screen(f).trimEnd().endsWith("2"), 10_000, "the option's key");
    expect(f.task(t.id).decision).toMatchObject({ answer: "no" });

    // Later a prose question: the answer goes in as text.
    const again = new Date().toISOString();
    const { updateTask } = await import("../../src/state/tasks");
    // As the sentinel records a needs-decision line: the soldier idle, the task blocked after it.
    writeSoldierState(f.paths, { task_id: t.id, state: "idle", at: again });
    await updateTask(f.paths, t.id, (cur) => ({ ...cur, status: "blocked", updated_at: again, decision: { question: "Which name?", options: [], asked_at: again, kind: "prose" } }));
    r = await f.run(["decide", t.id, "call it vexillum"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    await waitFor(() => screen(f).includes("call it vexillum"), 10_000, "the pasted answer").catch((e) => {
      console.log(JSON.stringify(screen(f)), r.stdout, r.stderr);
      throw e;
    });
  });

  test("vx wait's pane tail is the live tmux capture, redacted", async () => {
    await using f = await tmuxField();
    const t = await tmuxSoldier(f, { status: "done" });
    f.tmux("send-keys", "-t", "=vx-s:", "token ghp_abcdefghijklmnopqrstuvwxyz0123 used", "Enter");
    await waitFor(() => screen(f).includes("used"), 10_000, "the line on screen");
    const r = await f.run(["wait", t.id, "--pane-tail-lines", "5"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`VX_WAIT_PANE_TAIL: task=${t.id} lines=`);
    expect(r.stdout).toContain("source=live");
    expect(r.stdout).toContain("token [redacted-secret] used");
    expect(r.stdout).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123");
  });
});

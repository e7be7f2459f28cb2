// `vx resume` end to end (CMD-RESUME-01..03): refusals, the relaunch argv with the harness's
// continue flag on herdr and tmux, the text submitted, the camp and its work untouched, and the
// `vx status` line naming what can be resumed.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { followUpText } from "../../src/soldiers/prompt-text";
import { RESUME_TEXT } from "../../src/soldiers/resume";
import { taskPath } from "../../src/state/tasks";
import { agentArgv, queueFailure, readState, recordedPrompts, removeAgent } from "../fakes/herdr-control";
import { git, waitFor, writeExecutable } from "../helpers";
import { field, seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

/** The task's camp with a commit and an uncommitted file, as a soldier leaves it mid-turn. */
function workInCamp(camp: string): string {
  writeFileSync(join(camp, "WIP.md"), "half done\n");
  git(camp, "add", "WIP.md");
  git(camp, "commit", "-q", "-m", "half of it");
  writeFileSync(join(camp, "scratch.txt"), "uncommitted\n");
  return git(camp, "rev-parse", "HEAD");
}

describe("vx resume", () => {
  test("refusals: another status, a struck camp, a soldier still running, bad arguments; nothing changes", async () => {
    await using f = await field();
    const done = await seedTask(f, { status: "done" });
    let r = await f.run(["resume", done.task.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: task ${done.task.id} is done - only an interrupted or unconfirmed task can be resumed\n` });
    const struck = await seedTask(f, { status: "interrupted", leased: false });
    r = await f.run(["resume", struck.task.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: task ${struck.task.id}'s camp was already struck - redispatch it instead\n` });
    // Unconfirmed with its harness still in its pane: a prompt reaches it, no relaunch is needed.
    const alive = await seedTask(f, { status: "unconfirmed" });
    r = await f.run(["resume", alive.task.id]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: task ${alive.task.id}'s soldier is still running in herdr pane ${alive.name} - use 'vx prompt' instead\n`,
    });
    expect((await f.run(["resume"])).code).toBe(64);
    expect((await f.run(["resume", "nope"])).code).toBe(64);
    r = await f.run(["resume", alive.task.id, "  "]);
    expect({ code: r.code, stderr: r.stderr.split("\n")[0] }).toEqual({ code: 64, stderr: "vx: the resume text is empty - leave it out to send the default" });
    for (const s of [done, struck, alive]) expect(f.task(s.task.id)).toEqual(s.task);
    expect(recordedPrompts(f.fh)).toEqual([]);
  });

  test("herdr: an interrupted mission is relaunched in its own camp with --continue, its commit and uncommitted file kept", async () => {
    await using f = await field();
    const first = await f.run(["dispatch", "fix", "the", "login", "bug"]);
    const id = taskIdOf(first.stdout);
    const old = f.task(id);
    const head = workInCamp(old.camp_path!);
    removeAgent(f.fh, old.herdr_agent_name!);
    await waitFor(() => f.task(id).status === "interrupted", 10_000, "the sentinel to mark the task interrupted");

    const r = await f.run(["resume", id, "go", "on"]);
    expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
    const t = f.task(id);
    expect(r.stdout).toStartWith(`task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}\nstatus=running\n`);
    expect(t).toMatchObject({ status: "running", resumes: 1, camp_path: old.camp_path, camp_slot: old.camp_slot, prompt: "fix the login bug" });
    expect(t.amendments).toEqual([{ text: "go on", at: expect.any(String), source: "vx resume" }]);
    expect(t.herdr_tab_id).not.toBe(old.herdr_tab_id);
    expect(readState(f.fh).tabs.map((tab) => tab.tab_id)).not.toContain(old.herdr_tab_id);
    expect(agentArgv(f.fh, t.herdr_agent_name!)?.slice(0, 3)).toEqual(["claude", "--continue", "--dangerously-skip-permissions"]);
    const prompts = recordedPrompts(f.fh);
    expect(prompts.map((p) => p.text)).toEqual([prompts[0]!.text, followUpText("go on")]);
    // Nothing in the camp was touched.
    expect(git(t.camp_path!, "rev-parse", "HEAD")).toBe(head);
    expect(readFileSync(join(t.camp_path!, "scratch.txt"), "utf8")).toBe("uncommitted\n");
    expect(readPool(f.paths).slots).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
  });

  test("herdr: Codex resumes with `resume --last` first, and no text sends the default", async () => {
    await using f = await field();
    const seeded = await seedTask(f, { status: "interrupted", harness: "codex" });
    removeAgent(f.fh, seeded.name);
    const r = await f.run(["resume", seeded.task.id]);
    expect(r.code).toBe(0);
    const t = f.task(seeded.task.id);
    expect(agentArgv(f.fh, t.herdr_agent_name!)?.slice(0, 4)).toEqual(["codex", "resume", "--last", "--dangerously-bypass-approvals-and-sandbox"]);
    expect(recordedPrompts(f.fh).map((p) => p.text)).toEqual([followUpText(RESUME_TEXT)]);
    expect(t.amendments?.map((a) => a.text)).toEqual([RESUME_TEXT]);
  });

  test("a relaunch that fails leaves the task interrupted again, its camp and lease kept (T15)", async () => {
    await using f = await field();
    const seeded = await seedTask(f, { status: "interrupted" });
    removeAgent(f.fh, seeded.name);
    queueFailure(f.fh, "agent start", "agent_start_failed", { message: "agent process exited before becoming interactive" });
    const r = await f.run(["resume", seeded.task.id]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("status=interrupted\n");
    expect(r.stderr).toContain("vx: could not start claude in the soldier's pane");
    const t = f.task(seeded.task.id);
    expect(t).toMatchObject({ status: "interrupted", resumes: 1, camp_path: seeded.task.camp_path });
    expect(t.output).toContain("[vexillum] 'vx resume' could not relaunch this soldier - marked interrupted again");
    expect(t.amendments).toBeUndefined();
    expect(readPool(f.paths).slots).toEqual([{ number: 1, branch: `vexillum/${seeded.task.id}`, leased_by: seeded.task.id }]);
  });

  test("vx status ends with the line naming the interrupted tasks that can be resumed", async () => {
    await using f = await field();
    const a = await seedTask(f, { status: "interrupted" });
    let out = (await f.run(["status"])).stdout.trimEnd().split("\n");
    expect(out.at(-1)).toBe(`1 interrupted task can be resumed in its camp, its work kept: vx resume ${a.task.id}`);
    const b = await seedTask(f, { status: "interrupted", updated_at: "2026-11-30T11:00:00.000Z" });
    await seedTask(f, { status: "interrupted", leased: false });
    out = (await f.run(["status"])).stdout.trimEnd().split("\n");
    expect(out.at(-1)).toBe(`2 interrupted tasks can be resumed in their camps, their work kept: vx resume <task-id> (${b.task.id}, ${a.task.id})`);
  });
});

describe("vx resume --backend tmux", () => {
  test("a killed session's soldier comes back in a new session in the same camp with --continue and the text", async () => {
    await using f = await tmuxField();
    const first = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    const id = taskIdOf(first.stdout);
    const old = f.task(id);
    const head = workInCamp(old.camp_path!);
    f.tmux("kill-session", "-t", `=${old.tmux_target}`);
    await waitFor(() => f.task(id).status === "interrupted", 30_000, "the sentinel to mark the task interrupted");
    expect((await f.run(["status"])).stdout).toContain(`vx resume ${id}\n`);

    const r = await f.run(["resume", id, "go on"]);
    expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
    const t = f.task(id);
    expect(r.stdout).toContain(`tmux: session=${t.tmux_target} cwd=${old.camp_path} branch=vexillum/${id} gate=ok\n`);
    expect(t).toMatchObject({ status: "running", resumes: 1, camp_path: old.camp_path, backend: "tmux" });
    const argv = readFileSync(join(f.home, "argv"), "utf8").split("\n");
    expect(argv.slice(0, 2)).toEqual(["--continue", "--dangerously-skip-permissions"]);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", `=${t.tmux_target}:`, "-S", "-200").out;
    await waitFor(() => screen().includes("go on"), 10_000, "the pasted resume text");
    expect(git(t.camp_path!, "rev-parse", "HEAD")).toBe(head);
    expect(existsSync(join(t.camp_path!, "scratch.txt"))).toBe(true);
  });
});

// A stand-in OpenCode: `session list` answers from $HOME/sessions-mode (fail, none, or three sessions,
// two of them this camp's); otherwise it records its argv and waits as a harness does.
const OPENCODE = `#!/bin/sh
if [ "$1" = session ]; then
  case "$(cat "$HOME/sessions-mode" 2>/dev/null)" in
    fail) echo "Error: database is locked" >&2; exit 1;;
    none) printf '[]\\n'; exit 0;;
    # Another writer (the sentinel) changes the task while vx resume is between its check and its save.
    race) t="$(cat "$HOME/race-task")"; sed 's/"status": "interrupted"/"status": "unconfirmed"/' "$t" > "$t.tmp" && mv "$t.tmp" "$t"; printf '[]\\n'; exit 0;;
  esac
  printf '[{"id":"ses_other","updated":300,"directory":"/elsewhere"},{"id":"ses_old","updated":100,"directory":"%s"},{"id":"ses_mine","updated":200,"directory":"%s"}]\\n' "$PWD" "$PWD"
  exit 0
fi
printf '%s\\n' "$@" > "$HOME/argv"
${Bun.which("stty")} -echo
printf 'Ask anything\\n'
exec cat
`;

describe("vx resume: OpenCode's session by the camp's directory", () => {
  test("--session of the camp's newest session; a failed lookup refuses with nothing changed; none starts afresh", async () => {
    await using f = await tmuxField();
    writeExecutable(join(f.bin, "opencode"), OPENCODE);
    const first = await f.run(["dispatch", "fix the login bug", "--backend", "tmux", "--harness", "opencode"]);
    const id = taskIdOf(first.stdout);
    const old = f.task(id);
    f.tmux("kill-session", "-t", `=${old.tmux_target}`);
    await waitFor(() => f.task(id).status === "interrupted", 30_000, "the sentinel to mark the task interrupted");

    writeFileSync(join(f.home, "sessions-mode"), "fail");
    const before = f.task(id);
    let r = await f.run(["resume", id]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toEndWith(
      "vx: could not list OpenCode's sessions to find this soldier's ('opencode session list': Error: database is locked) - run 'opencode session list' in the camp to see why, then resume again\n",
    );
    expect(f.task(id)).toEqual(before);

    // A task changed under the resume: nothing relaunched, and the error says what to do.
    writeFileSync(join(f.home, "race-task"), taskPath(f.paths, id));
    writeFileSync(join(f.home, "sessions-mode"), "race");
    r = await f.run(["resume", id]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toEndWith(
      `vx: task ${id} changed while it was being resumed (it is now unconfirmed) - nothing was relaunched; see 'vx status', then resume it again if it is still interrupted or unconfirmed\n`,
    );
    expect(f.task(id)).toEqual({ ...before, status: "unconfirmed" });

    writeFileSync(join(f.home, "sessions-mode"), "three");
    r = await f.run(["resume", id, "go on"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(f.home, "argv"), "utf8").split("\n").slice(0, 2)).toEqual(["--session", "ses_mine"]);

    // Once more with no session of this camp: a fresh start with the original prompt and the text.
    const t = f.task(id);
    f.tmux("kill-session", "-t", `=${t.tmux_target}`);
    await waitFor(() => f.task(id).status === "interrupted", 30_000, "the sentinel to mark the task interrupted again");
    writeFileSync(join(f.home, "sessions-mode"), "none");
    r = await f.run(["resume", id, "go on"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("vx: no opencode session to continue for this camp - it starts afresh in the same camp with the original prompt\n");
    expect(readFileSync(join(f.home, "argv"), "utf8")).not.toContain("--session");
    expect(f.task(id).resumes).toBe(2);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", `=${f.task(id).tmux_target}:`, "-S", "-200").out;
    await waitFor(() => screen().includes("fix the login bug") && screen().includes("go on"), 10_000, "the original prompt and the text");
  });
});

// A `vx prompt` or `vx dispatch` killed while its text goes into a tmux soldier (issue 15): no paste
// buffer, and the prompt in it, stays on the server (item 18), and the task does not stay
// `running` forever: the sentinel settles it (item 9). A tmux wrapper on PATH holds the call that
// pastes, so the kill lands exactly there.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { listTasks, loadTask } from "../../src/state/tasks";
import { VX_BIN, waitFor, writeExecutable } from "../helpers";
import { seedTask } from "./soldier-field";
import { tmuxField } from "./tmux-field";

type TF = Awaited<ReturnType<typeof tmuxField>>;

const REAL_TMUX = Bun.which("tmux")!;

/**
 * Holds every tmux call that pastes until the test kills it; its pid goes to `$HOME/held.pid`. The
 * shell itself blocks opening the FIFO (no child), so killing it leaves nothing behind.
 */
function holdPastes(f: TF): { heldPid(): number | undefined } {
  const fifo = join(f.home, "hold-paste");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  writeExecutable(join(f.bin, "tmux"), `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = paste-buffer ]; then echo $$ > "$HOME/held.pid"; read -r _ < '${fifo}'; fi\ndone\nexec '${REAL_TMUX}' "$@"\n`);
  const pidFile = join(f.home, "held.pid");
  return { heldPid: () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) || undefined : undefined) };
}

/** Starts `args` and kills it (and the held tmux call) once its paste is held. */
async function killAtPaste(f: TF, args: string[]): Promise<void> {
  const hold = holdPastes(f);
  const proc = Bun.spawn([VX_BIN, ...args], { cwd: f.project, env: f.env, stdout: "ignore", stderr: "ignore" });
  try {
    const pid = await waitFor(() => hold.heldPid(), 30_000, "the paste to be held");
    proc.kill("SIGKILL");
    await proc.exited;
    process.kill(pid, "SIGKILL");
  } finally {
    proc.kill("SIGKILL");
  }
}

const vxBuffers = (f: TF) =>
  f
    .tmux("list-buffers", "-F", "#{buffer_name}")
    .out.split("\n")
    .filter((n) => n.startsWith("vx-"));

describe("a delivery killed at the paste", () => {
  test("prompt: no vx buffer stays on the server, and the sentinel settles the task", async () => {
    await using f = await tmuxField();
    const { task } = await seedTask(f, { status: "done", backend: "tmux", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    expect(f.tmux("new-session", "-d", "-s", "vx-s", "-c", task.camp_path!, "-e", `VX_TASK_ID=${task.id}`, "--", join(f.bin, "claude")).code).toBe(0);
    await waitFor(() => f.tmux("capture-pane", "-p", "-t", "=vx-s:").out.includes("\u276f"), 10_000, "the harness");
    writeSoldierState(f.paths, { task_id: task.id, state: "idle", at: new Date().toISOString() });

    await killAtPaste(f, ["prompt", task.id, "the secret plan"]);
    expect(vxBuffers(f)).toEqual([]);
    expect(loadTask(f.paths, task.id)?.value.status).toBe("running");

    // No command holds the task any more: the sentinel takes the undelivered prompt as a finished turn.
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdout: "ignore", stderr: "ignore" });
    try {
      const settled = await waitFor(
        () => {
          const t = loadTask(f.paths, task.id)?.value;
          return t && t.status !== "running" ? t : undefined;
        },
        30_000,
        "the task settled",
      );
      // Its turn shows no finish, so the commander is asked to look (not done, not running forever).
      expect(settled.status).toBe("unconfirmed");
    } finally {
      sentinel.kill("SIGTERM");
      await sentinel.exited;
    }
    expect(f.tmux("capture-pane", "-p", "-t", "=vx-s:").out).not.toContain("the secret plan");
  });

  test("dispatch: the launch killed at its first paste is settled, not left running", async () => {
    await using f = await tmuxField();
    await killAtPaste(f, ["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect(vxBuffers(f)).toEqual([]);
    const [t] = listTasks(f.paths).map((l) => l.value);
    expect(t).toMatchObject({ status: "running", backend: "tmux" });
    // The dispatch started the sentinel before its launch; it settles the task.
    const settled = await waitFor(
      () => {
        const now = loadTask(f.paths, t!.id)?.value;
        return now && now.status !== "running" ? now : undefined;
      },
      30_000,
      "the task settled",
    );
    expect(settled.status).toBe("unconfirmed");
  });
});

// CMD-REPORT-03 on a real full disk: the state root on a small tmpfs, filled to the last byte. A
// soldier's Stop-hook `vx report idle` cannot be recorded; it says why in one line and takes its
// stale `working` report away, so the sentinel judges the soldier from its pane (TMX-05) and its
// question reaches the commander once space is freed. Needs root (mount); skipped elsewhere.
import { describe, expect, test } from "bun:test";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, rmdirSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statePath } from "../../src/state/soldier-state";
import { TRAILER } from "../../src/lifecycle/evidence";
import { loadTask } from "../../src/state/tasks";
import { VX_BIN, waitFor, writeExecutable } from "../helpers";
import { initProject } from "../init-project";
import { field, seedTask } from "./soldier-field";

const run = (argv: string[]) => Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });

/** Whether this process may mount a tmpfs (root, and a kernel and container that allow it). */
function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), "vx-mount-probe-"));
  try {
    if (run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).exitCode !== 0) return false;
    return run(["umount", dir]).exitCode === 0;
  } finally {
    rmdirSync(dir);
  }
}

/** Writes zeros into `path` until the file system has no room left. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
}

const QUESTION = "drop the legacy users table, or keep it read-only?";

describe("vx report on a full disk", () => {
  test.skipIf(!canMountTmpfs())(
    "a failed idle report says why in one line; the soldier's question reaches the commander once space is freed",
    async () => {
      await using f = await field({ init: false });
      const root = join(f.home, ".vexillum");
      mkdirSync(root, { mode: 0o700 });
      expect(run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", root]).exitCode).toBe(0);
      f.env.TMUX_TMPDIR = f.home;
      const tmux = (...args: string[]) => Bun.spawnSync(["tmux", ...args], { env: f.env, stdout: "pipe", stderr: "pipe" });
      let sentinel: Bun.Subprocess | undefined;
      try {
        await initProject(f.project, f.env);
        const { task } = await seedTask(f, { status: "running", backend: "tmux", tmux_target: "vx-q", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
        const camp = task.camp_path!;
        // The soldier's last turn ends with its question, as a Claude Code soldier asks one.
        writeExecutable(join(f.bin, "soldier"), `#!/bin/sh\nprintf '%s\\n' '${TRAILER}' 'needs-decision: ${QUESTION}'\nexec cat\n`);
        expect(tmux("new-session", "-d", "-s", "vx-q", "-c", f.home, "--", join(f.bin, "soldier")).exitCode).toBe(0);
        const hookEnv = { ...f.env, VX_HARNESS: "claude" };
        expect(await f.run(["report", "working"], { cwd: camp, env: hookEnv })).toMatchObject({ code: 0, stderr: "" });
        const log = join(f.home, "sentinel.log");
        const fd = openSync(log, "a");
        sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdin: "ignore", stdout: fd, stderr: fd });
        closeSync(fd);
        await waitFor(() => readFileSync(log, "utf8").includes("states dir(s) for changes"), 30_000, "the sentinel's first pass");

        const filler = join(root, "filler");
        fill(filler);
        const r = await f.run(["report", "idle"], { cwd: camp, env: hookEnv });
        const state = statePath(f.paths, task.id);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe("");
        expect(r.stderr).toBe(
          `vx: report: could not record idle for task ${task.id} (${state}: ENOSPC: no space left on device, write) - its earlier report is removed, so the sentinel judges the soldier from its pane; free space so reports are recorded again\n`,
        );
        expect(existsSync(state)).toBe(false);

        rmSync(filler);
        await waitFor(() => loadTask(f.paths, task.id)?.value.status === "blocked", 30_000, "the task blocked once space is freed");
        expect(loadTask(f.paths, task.id)?.value.decision).toMatchObject({ question: QUESTION });
        // The pass saves the task, then writes its wake (WAK-05's order): wait for the second.
        const wakePath = join(f.paths.wakesDir, `${task.id}.json`);
        await waitFor(() => existsSync(wakePath), 30_000, "the blocked task's wake");
        const wake = JSON.parse(readFileSync(wakePath, "utf8"));
        expect(wake).toMatchObject({ task_id: task.id, new_status: "blocked" });
      } finally {
        if (sentinel) {
          sentinel.kill("SIGTERM");
          await sentinel.exited;
        }
        tmux("kill-server");
        // Lazily, should anything still hold a file there: the mount must never outlive the test.
        if (run(["umount", root]).exitCode !== 0) run(["umount", "-l", root]);
      }
    },
    90_000,
  );
});

// The sentinel process with a tmux soldier: a `vx report idle` cuts its poll short (it watches
// states/), so the soldier is settled after one stabilizing re-read, not at the next poll.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { loadTask } from "../../src/state/tasks";
import { git, waitFor, writeExecutable } from "../helpers";
import { TRAILER } from "../../src/lifecycle/evidence";
import { field, seedTask } from "./soldier-field";

describe("sentinel with tmux soldiers", () => {
  test("an idle report is settled before the next poll: done and its wake", async () => {
    // Scale 10: a 50 s poll and a 10 s stabilizing gap, so settling in between proves the watch.
    await using f = await field({ scale: "10" });
    f.env.TMUX_TMPDIR = f.home;
    const tmux = (...args: string[]) => Bun.spawnSync(["tmux", ...args], { env: f.env, stdout: "pipe", stderr: "pipe" });
    try {
      const { task } = await seedTask(f, { status: "running", backend: "tmux", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
      writeExecutable(join(f.bin, "soldier"), `#!/bin/sh\nprintf '%s\\n' '${TRAILER}' 'Fixed it.'\nexec cat\n`);
      expect(tmux("new-session", "-d", "-s", "vx-s", "-c", task.camp_path!, "--", join(f.bin, "soldier")).exitCode).toBe(0);
      writeSoldierState(f.paths, { task_id: task.id, state: "working", at: new Date().toISOString() });
      git(task.camp_path!, "commit", "-q", "--allow-empty", "-m", "fixed");
      const sentinel = Bun.spawn([join(import.meta.dir, "..", "..", "dist", "vx"), "sentinel"], { cwd: f.home, env: f.env, stdout: "pipe", stderr: "pipe" });
      try {
        let out = "";
        const reader = sentinel.stdout.getReader();
        const decoder = new TextDecoder();
        // After its first pass (the soldier working) it watches states/; the next pass is 50 s away.
        await waitFor(
          async () => {
            const { value } = await reader.read();
            out += decoder.decode(value ?? new Uint8Array());
            return out.includes("watching 0 queue and 1 states dir(s) for changes");
          },
          30_000,
          "the sentinel's watch",
        );
        reader.releaseLock();
        expect(loadTask(f.paths, task.id)?.value.status).toBe("running");
        const at = Date.now();
        writeSoldierState(f.paths, { task_id: task.id, state: "idle", at: new Date().toISOString() });
        await waitFor(() => loadTask(f.paths, task.id)?.value.status === "done", 40_000, "the task done before the next poll");
        await waitFor(() => existsSync(join(f.paths.wakesDir, `${task.id}.json`)), 10_000, "its wake");
        expect(loadTask(f.paths, task.id)?.value.output).toBe(`${TRAILER}\nFixed it.`);
        console.log(`tmux idle report -> done at scale 10: ${Date.now() - at} ms (poll 50 s, stabilizing gap 10 s)`);
      } finally {
        sentinel.kill("SIGTERM");
        await sentinel.exited;
      }
    } finally {
      tmux("kill-server");
    }
  }, 90_000);
});

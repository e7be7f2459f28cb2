// What a dispatch that fails or is killed part-way leaves behind (issue: leaks after failure or kill -9).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { listTasks } from "../../src/state/tasks";
import { callsOf, holdCommand } from "../fakes/herdr-control";
import { loadState } from "../fakes/herdr-state";
import { VX_BIN, waitFor, writeExecutable } from "../helpers";
import { field } from "./soldier-field";
import { tmuxField } from "./tmux-field";

describe("vx dispatch: leftovers", () => {
  test("a dispatch that fails after leasing its camp gives the lease back", async () => {
    await using f = await field();
    // The tasks lock cannot be opened, so the task is never saved once the camp is leased.
    mkdirSync(f.paths.tasksDir, { recursive: true });
    mkdirSync(`${f.paths.tasksDir}/.lock`);
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).not.toBe(0);
    expect(listTasks(f.paths)).toEqual([]);
    const pool = readPool(f.paths);
    expect(pool.slots).toHaveLength(1);
    expect(pool.slots.filter((s) => s.leased_by)).toEqual([]);
  });

  test("kill -9 while herdr creates the tab: the sentinel closes the tab it left and fails the task; strike returns the camp", async () => {
    await using f = await field();
    const hold = holdCommand(f.fh, "tab create");
    let lookup: { release(): void } | undefined;
    const proc = Bun.spawn([VX_BIN, "dispatch", "fix it"], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      await waitFor(() => callsOf(f.fh, "tab", "create").length === 1, 30_000, "the tab create");
      // Read while the dispatch is held: once it is killed, the sentinel may fail the task at any moment.
      const [pending] = listTasks(f.paths).map((l) => l.value);
      expect(pending).toMatchObject({ status: "pending", herdr_agent_name: "vx-fix-it", herdr_workspace_id: f.ws.workspace_id });
      expect(pending?.herdr_tab_id).toBeUndefined();
      // The sentinel's look for the tab waits until herdr has made it: otherwise, on a busy machine,
      // it could look first, find nothing, and leave the tab made just after.
      lookup = holdCommand(f.fh, "tab list");
    } finally {
      // Killed however the reads above went, so a failed one leaves no dispatch running.
      proc.kill("SIGKILL");
      await proc.exited;
      // herdr carries on without its caller: the tab appears, and no task records it.
      hold.release();
    }
    const tabsLabelled = () => loadState(f.fh.FAKE_HERDR_STATE).tabs.filter((t) => t.label === "vx-fix-it");
    try {
      await waitFor(() => tabsLabelled().length === 1, 30_000, "herdr to finish creating the tab");
    } finally {
      lookup?.release();
    }

    // dispatch auto-started the sentinel before it was killed; it finds the dead launch.
    const failed = await waitFor(() => listTasks(f.paths).find((l) => l.value.status === "failed")?.value, 30_000, "the task failed");
    expect(failed.output).toBe("[vexillum] the command launching this soldier stopped before it finished - marked failed.");
    expect(tabsLabelled()).toEqual([]);
    expect(readPool(f.paths).slots.filter((s) => s.leased_by === failed.id)).toHaveLength(1);

    const struck = await f.run(["strike", failed.id, "--discard"]);
    expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readPool(f.paths).slots.filter((s) => s.leased_by)).toEqual([]);
  });

  test("kill -9 before tmux made the session: the copy of its environment it wrote is removed when the task is failed", async () => {
    await using f = await tmuxField();
    // The real tmux is never run for new-session: the dispatch dies while tmux is held, after it
    // wrote the environment file for a pane launcher that never starts.
    const real = Bun.which("tmux", { PATH: f.env.PATH })!;
    const held = join(f.home, "held");
    const release = join(f.home, "release");
    writeExecutable(
      join(f.bin, "tmux"),
      `#!/bin/sh\ncase " $* " in *" new-session "*) : > "${held}"; while [ ! -e "${release}" ]; do ${Bun.which("sleep")} 0.05; done; exit 1;; esac\nexec "${real}" "$@"\n`,
    );
    const proc = Bun.spawn([VX_BIN, "dispatch", "fix it", "--backend", "tmux"], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    let envFile = "";
    try {
      await waitFor(() => existsSync(held), 30_000, "new-session called");
      // Read while the dispatch is held: once it is killed, the sentinel may fail the task at any moment.
      const [pending] = listTasks(f.paths).map((l) => l.value);
      envFile = join(f.paths.stateDir, "hooks", pending!.id, "soldier-env.json");
      expect(existsSync(envFile)).toBe(true);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
      writeFileSync(release, "");
    }

    const failed = await waitFor(() => listTasks(f.paths).find((l) => l.value.status === "failed")?.value, 30_000, "the task failed");
    expect(failed.output).toBe("[vexillum] the command launching this soldier stopped before it finished - marked failed.");
    expect(existsSync(envFile)).toBe(false);
  });

  test("kill -9 right after tmux made the session: the sentinel kills the session it left and fails the task; strike returns the camp", async () => {
    await using f = await tmuxField();
    // The real tmux, held (as the fake herdr is above) once it has made the session, so the
    // dispatch dies between the session existing and the task recording it.
    const real = Bun.which("tmux", { PATH: f.env.PATH })!;
    const created = join(f.home, "created");
    const release = join(f.home, "release");
    writeExecutable(
      join(f.bin, "tmux"),
      `#!/bin/sh\ncase " $* " in *" new-session "*) "${real}" "$@"; rc=$?; : > "${created}"; while [ ! -e "${release}" ]; do ${Bun.which("sleep")} 0.05; done; exit $rc;; esac\nexec "${real}" "$@"\n`,
    );
    const proc = Bun.spawn([VX_BIN, "dispatch", "fix it", "--backend", "tmux"], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      await waitFor(() => existsSync(created), 30_000, "the session made");
      // Read while the dispatch is held: once it is killed, the sentinel may end the session and
      // fail the task at any moment (a run on a busy machine saw the session already gone).
      const [pending] = listTasks(f.paths).map((l) => l.value);
      expect(pending).toMatchObject({ status: "pending", backend: "tmux", tmux_target: "vx-fix-it" });
      expect(pending?.tmux_socket).toBe(join(f.home, `tmux-${process.getuid!()}`, "default"));
      expect(f.tmux("has-session", "-t", "=vx-fix-it").code).toBe(0);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
      writeFileSync(release, "");
    }

    // dispatch auto-started the sentinel before it was killed; it finds the dead launch.
    const failed = await waitFor(() => listTasks(f.paths).find((l) => l.value.status === "failed")?.value, 30_000, "the task failed");
    expect(failed.output).toBe("[vexillum] the command launching this soldier stopped before it finished - marked failed.");
    expect(f.tmux("has-session", "-t", "=vx-fix-it").code).not.toBe(0);

    const struck = await f.run(["strike", failed.id, "--discard"]);
    expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readPool(f.paths).slots.filter((s) => s.leased_by)).toEqual([]);
  });
});

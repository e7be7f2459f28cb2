// The tmux client against a real tmux server of the test's own (TMUX_TMPDIR), never the user's.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmuxClient, parsePanes, tmuxArgv } from "../../src/backends/tmux";
import { realExec } from "../../src/exec";
import { waitFor } from "../helpers";

const dir = mkdtempSync(join(tmpdir(), "vx-tmux-"));
const env = { PATH: process.env.PATH ?? "", HOME: dir, TMUX_TMPDIR: dir, TERM: "xterm-256color" };
const tmux = createTmuxClient({ exec: realExec, env });

afterAll(() => {
  Bun.spawnSync(["tmux", "kill-server"], { env, stdout: "ignore", stderr: "ignore" });
  rmSync(dir, { recursive: true, force: true });
});

describe("tmux client", () => {
  test("no server: no panes, no session, killing is a no-op", async () => {
    expect(await tmux.listPanes()).toEqual([]);
    expect(await tmux.hasSession("vx-none")).toBe(false);
    expect(await tmux.killSession("vx-none")).toBe(false);
  });

  test("a session runs argv in its cwd with its env; exact names; paste arrives once, whole", async () => {
    const argv = ["sh", "-c", 'printf "task=%s\\n" "$VX_TASK_ID"; exec cat'];
    await tmux.newSession({ name: "vx-ab", cwd: dir, env: { VX_TASK_ID: "0123456789abcdef" }, argv });
    await tmux.newSession({ name: "vx-a", cwd: dir, env: {}, argv: ["cat"] });
    await waitFor(async () => (await tmux.capture("vx-ab")).includes("task=0123456789abcdef"), 10_000, "the session's output");
    const panes = await tmux.listPanes();
    expect(panes.map((p) => p.session).sort()).toEqual(["vx-a", "vx-ab"]);
    const ab = panes.find((p) => p.session === "vx-ab")!;
    expect(ab).toMatchObject({ dead: false, command: "cat", path: dir });
    expect(ab.pid).toBeGreaterThan(0);

    await tmux.paste("vx-ab", "first line; $(rm -rf x) 'quoted'\nsecond line");
    await waitFor(async () => (await tmux.capture("vx-ab")).includes("second line"), 10_000, "the pasted text");
    const screen = await tmux.capture("vx-ab");
    expect(screen.split("first line; $(rm -rf x) 'quoted'").length - 1).toBeGreaterThanOrEqual(1);

    expect(await tmux.killSession("vx-a")).toBe(true);
    expect(await tmux.hasSession("vx-a")).toBe(false);
    expect(await tmux.hasSession("vx-ab")).toBe(true);
    expect(await tmux.killSession("vx-a")).toBe(false);
    await expect(tmux.capture("vx-a")).rejects.toMatchObject({ code: "session_not_found" });
    expect(await tmux.killSession("vx-ab")).toBe(true);
  });

  test("tmux missing from PATH is its own error", async () => {
    const none = createTmuxClient({ exec: realExec, env: { ...env, PATH: dir } });
    await expect(none.listPanes()).rejects.toMatchObject({ code: "tmux_missing" });
  });

  test("argv and parsing", () => {
    expect(tmuxArgv.capture("vx-x", 500)).toEqual(["tmux", "capture-pane", "-p", "-J", "-t", "=vx-x:", "-S", "-500"]);
    expect(parsePanes("vx-x|%3|1|42|bash|/c|d\n\n")).toEqual([{ session: "vx-x", paneId: "%3", dead: true, command: "bash", path: "/c|d", pid: 42 }]);
  });
});

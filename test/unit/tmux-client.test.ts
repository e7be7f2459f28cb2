// The tmux client against a real tmux server of the test's own (TMUX_TMPDIR), never the user's.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmuxClient, defaultSocket, parsePaneInfo, parsePanes, tmuxArgv } from "../../src/backends/tmux/client";
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
    expect(ab).toMatchObject({ dead: false, command: "cat" });
    expect(await tmux.paneInfo(ab.paneId)).toEqual({ sessionId: ab.sessionId, paneId: ab.paneId, dead: false, path: dir });
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

  test("the path, environment and argv reach the program exactly, whatever `;`, `\\` or `#` they hold", async () => {
    const path = join(dir, "a #{pane_id} #(echo x) b\\;");
    mkdirSync(path, { recursive: true });
    const out = join(dir, "seen");
    const argv = ["sh", "-c", 'printf "%s|%s|%s|%s\\n" "$(pwd)" "$VX_X" "$1" "$2" > "$0"', out, ";", "#{session_id} x;"];
    const { sessionId } = await tmux.newSession({ name: "vx-semi", cwd: path, env: { VX_X: "v;" }, argv });
    try {
      await waitFor(() => Bun.file(out).size > 0, 10_000, "the program's output");
      expect(await Bun.file(out).text()).toBe(`${path}|v;|;|#{session_id} x;\n`);
    } finally {
      await tmux.killSession(sessionId);
    }
  });

  test("a server left with no session (its last one ended, or exit-empty off) is as no server: no panes, no session, no pane info, no environment", async () => {
    const socket = join(dir, "empty.sock");
    const empty = createTmuxClient({ exec: realExec, env, socket });
    const opts = { env, stdout: "ignore", stderr: "ignore" } as const;
    try {
      const { sessionId, paneId } = await empty.newSession({ name: "vx-last", cwd: dir, env: {}, argv: ["cat"] });
      expect(Bun.spawnSync(["tmux", "-S", socket, "set-option", "-g", "exit-empty", "off"], opts).exitCode).toBe(0);
      // Another session's environment while this one runs: none, not an error.
      expect(await empty.sessionEnv("$99", "VX_X")).toBeUndefined();
      expect(await empty.killSession(sessionId)).toBe(true);
      expect(await empty.listPanes()).toEqual([]);
      expect(await empty.hasSession(sessionId)).toBe(false);
      expect(await empty.killSession(sessionId)).toBe(false);
      expect(await empty.paneInfo(paneId)).toBeUndefined();
      expect(await empty.sessionEnv(sessionId, "VX_X")).toBeUndefined();
    } finally {
      // Under exit-empty off it would outlive the test: stopped whatever failed above.
      Bun.spawnSync(["tmux", "-S", socket, "kill-server"], opts);
    }
  });

  test("tmux missing from PATH is its own error", async () => {
    const none = createTmuxClient({ exec: realExec, env: { ...env, PATH: dir } });
    await expect(none.listPanes()).rejects.toMatchObject({ code: "tmux_missing" });
  });

  test("argv and parsing", () => {
    expect(tmuxArgv.capture("vx-x", 500)).toEqual(["tmux", "capture-pane", "-p", "-J", "-t", "=vx-x:", "-S", "-500"]);
    expect(parsePanes("$2|%3|1|42||vx\\|x|ba|sh\n\n")).toEqual([{ session: "vx|x", sessionId: "$2", paneId: "%3", dead: true, command: "ba|sh", pid: 42, tag: "" }]);
    expect(parsePanes("$2|%3|0|42|0123456789abcdef|vx|cat\n")[0]?.tag).toBe("0123456789abcdef");
    // A tag not in the shape vx gives it makes the row unreadable, never another task's.
    expect(parsePanes("$2|%3|0|42|x|vx|cat\n/forged|%3|0|1||x|claude\n")).toEqual([]);
    expect(parsePaneInfo("$1|%2|0|/a\n$9|%9|1|x\n")).toEqual({ sessionId: "$1", paneId: "%2", dead: false, path: "/a\n$9|%9|1|x" });
  });

  test("a newline in a pane's path or command forges no row of the survey; the path is read whole for one pane", async () => {
    // Each would read, in the row format before this one, as another session's dead pane.
    const forged = "x\n$0|%0|1|1|vx-forged|claude";
    const path = join(dir, `in${forged}`);
    mkdirSync(path, { recursive: true });
    const program = join(dir, `sleep${forged}`);
    copyFileSync(Bun.which("sleep")!, program);
    const { sessionId, paneId } = await tmux.newSession({ name: "vx-nl", cwd: path, env: {}, argv: [program, "600"] });
    try {
      await waitFor(async () => (await tmux.listPanes()).find((p) => p.paneId === paneId)?.command.startsWith("sleep"), 10_000, "the program");
      const panes = await tmux.listPanes();
      expect(panes.map((p) => ({ session: p.session, sessionId: p.sessionId, paneId: p.paneId, dead: p.dead }))).toEqual([{ session: "vx-nl", sessionId, paneId, dead: false }]);
      expect(panes[0]!.command).toBe(`sleep${forged.replace("\n", " ")}`);
      expect((await tmux.paneInfo(paneId))?.path).toBe(path);
    } finally {
      await tmux.killSession(sessionId);
    }
  });

  test("ids and sockets: two servers, each client on its own; an id names one session only; the session environment", async () => {
    const other = join(dir, "other.sock");
    const b = createTmuxClient({ exec: realExec, env, socket: other });
    const a = createTmuxClient({ exec: realExec, env, socket: defaultSocket(env) });
    try {
      const onA = await a.newSession({ name: "vx-same", cwd: dir, env: { VX_TASK_ID: "aaaaaaaaaaaaaaaa" }, argv: ["cat"], keepDeadPane: true, tag: "aaaaaaaaaaaaaaaa" });
      const onB = await b.newSession({ name: "vx-same", cwd: dir, env: { VX_TASK_ID: "bbbbbbbbbbbbbbbb" }, argv: ["cat"] });
      // The default socket is the one a plain tmux (no -S, no $TMUX) uses.
      const shown = Bun.spawnSync(["tmux", "display-message", "-p", "-t", onA.sessionId, "#{socket_path}"], { env }).stdout.toString();
      expect(shown).toBe(`${defaultSocket(env)}\n`);
      expect(defaultSocket({ ...env, TMUX: `${other},123,0` })).toBe(other);
      expect(await a.sessionEnv(onA.sessionId, "VX_TASK_ID")).toBe("aaaaaaaaaaaaaaaa");
      // The tag alone puts the task id in the session's environment.
      const tagged = await a.newSession({ name: "vx-tagged", cwd: dir, env: {}, argv: ["cat"], tag: "cccccccccccccccc" });
      expect(await a.sessionEnv(tagged.sessionId, "VX_TASK_ID")).toBe("cccccccccccccccc");
      expect(await a.killSession(tagged.sessionId)).toBe(true);
      expect(await b.sessionEnv(onB.sessionId, "VX_TASK_ID")).toBe("bbbbbbbbbbbbbbbb");
      expect(await b.sessionEnv(onB.sessionId, "VX_NONE")).toBeUndefined();
      expect((await b.listPanes()).map((p) => [p.paneId, p.tag])).toEqual([[onB.paneId, ""]]);
      expect((await a.listPanes()).map((p) => [p.paneId, p.tag])).toEqual([[onA.paneId, "aaaaaaaaaaaaaaaa"]]);
      expect(await b.killSession(onB.sessionId)).toBe(true);
      expect(await a.hasSession("vx-same")).toBe(true);
      expect(await b.paneInfo(onB.paneId)).toBeUndefined();
    } finally {
      Bun.spawnSync(["tmux", "-S", other, "kill-server"], { env, stdout: "ignore", stderr: "ignore" });
      await a.killSession("vx-same").catch(() => false);
    }
  });
});

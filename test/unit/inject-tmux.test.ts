// CMDR-10 (AWT-12): the sentinel's delivery to a hook-less commander in a plain tmux pane, without
// herdr: a real private tmux server, a stand-in OpenCode (a shell whose argv[0] is `opencode`, with
// a prompt box drawn as OpenCode's is, every row marked `┃`) in its pane. It is live only while its recorded pid
// runs it in that pane; a wake is typed only when the screen shows it idle with an empty input
// line, and is otherwise kept and retried; it is typed once.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandersCheck } from "../../src/doctor/commanders";
import { injectWakes } from "../../src/commanders/inject";
import { noteCommander } from "../../src/commanders/resolve";
import { screenState } from "../../src/backends/commander-screen";
import { identifyTmuxCommander } from "../../src/backends/tmux/commander";
import { realExec } from "../../src/exec";
import { HARNESSES, HARNESS_NAMES } from "../../src/harnesses";
import { fakeClock, testDeps } from "../deps";
import { waitFor } from "../helpers";
import { T0, commanderWithWake, iso, world } from "../sentinel-kit";

/** The stand-in OpenCode, its prompt box drawn as OpenCode's is. */
const STAND_IN = join(import.meta.dir, "..", "fixtures", "opencode-stand-in.sh");

async function field() {
  const w = world();
  const { dir, paths } = w.addProject();
  const socket = join(w.home, "tmux.sock");
  const tmux = (...args: string[]) => {
    const r = Bun.spawnSync(["tmux", "-S", socket, "-f", "/dev/null", ...args], { env: w.env, stdout: "pipe", stderr: "pipe" });
    return r.stdout.toString();
  };
  tmux("new-session", "-d", "-s", "cmd", "-x", "200", "-y", "20", "--", "bash", "-c", `exec -a opencode bash ${STAND_IN}`);
  const [pane, pid] = tmux("display-message", "-p", "-t", "cmd", "#{pane_id} #{pane_pid}").trim().split(" ");
  const screen = () => tmux("capture-pane", "-p", "-t", "cmd");
  await waitFor(() => (screen().includes("┃") ? true : undefined), 10_000, "the stand-in's input line");
  const entry = { project_path: dir, registered_at: iso(T0), tmux_pane: pane, tmux_socket: socket, pid: Number(pid) };
  const { id, wakePath, queued } = commanderWithWake(w, paths, "opencode", entry);
  const close = () => {
    tmux("kill-server");
    w[Symbol.dispose]();
  };
  return { w, dir, paths, tmux, screen, pane: pane as string, pid: Number(pid), socket, id, wakePath, queued, close };
}

describe("a hook-less commander in a plain tmux pane (CMDR-10)", () => {
  test("idle with an empty input line: the wake is typed once and consumed", async () => {
    const f = await field();
    try {
      await injectWakes(f.w.ctx, undefined);
      expect(f.queued()).toEqual([]);
      await waitFor(() => (f.screen().includes(`got: - mission ${f.id}: running -> done`) ? true : undefined), 10_000, "the typed wake");
      expect(f.w.logs).toEqual([`sentinel: delivered 1 wake(s) to the opencode commander of ${f.dir} typed into its tmux pane`]);
      await injectWakes(f.w.ctx, undefined);
      expect(f.screen().split(`got: - mission ${f.id}`).length - 1).toBe(1);
    } finally {
      f.close();
    }
  });

  test("a person's unsent text in the input line: nothing typed, the wake kept and retried once it is gone", async () => {
    const f = await field();
    try {
      f.tmux("send-keys", "-t", "cmd", "-l", "half a thought");
      await waitFor(() => (f.screen().includes("┃  half a thought") ? true : undefined), 10_000, "the draft");
      await injectWakes(f.w.ctx, undefined);
      expect(f.queued()).toEqual([`${f.id}.json`]);
      expect(JSON.parse(readFileSync(f.wakePath, "utf8")).delivery_failing_since).toBeDefined();
      expect(f.screen()).not.toContain("mission");
      expect(f.w.logs.join("\n")).toContain("holding unsent text in its input line");
      // The person sends their own line; the next pass types the wake.
      f.tmux("send-keys", "-t", "cmd", "Enter");
      await waitFor(() => (f.screen().includes("got: half a thought") ? true : undefined), 10_000, "the person's line");
      await injectWakes(f.w.ctx, undefined);
      expect(f.queued()).toEqual([]);
      await waitFor(() => (f.screen().includes(`mission ${f.id}: running -> done`) ? true : undefined), 10_000, "the typed wake");
    } finally {
      f.close();
    }
  });

  test("not live when its pid no longer runs it, or its pane is gone: nothing claimed", async () => {
    const f = await field();
    try {
      const before = readFileSync(f.wakePath, "utf8");
      const commanders = JSON.parse(readFileSync(f.paths.commandersFile, "utf8"));
      commanders.commanders.opencode.pid = process.pid; // a live pid that is not OpenCode
      writeFileSync(f.paths.commandersFile, JSON.stringify(commanders));
      await injectWakes(f.w.ctx, undefined);
      commanders.commanders.opencode.pid = f.pid;
      commanders.commanders.opencode.tmux_pane = "%99";
      writeFileSync(f.paths.commandersFile, JSON.stringify(commanders));
      await injectWakes(f.w.ctx, undefined);
      expect(readFileSync(f.wakePath, "utf8")).toBe(before);
      expect(f.screen()).not.toContain("mission");
    } finally {
      f.close();
    }
  });

  test("doctor's commanders check shows it live in its tmux pane, and not once its pid runs something else", async () => {
    const f = await field();
    try {
      const deps = { exec: realExec, clock: f.w.clock, env: f.w.env };
      const noHerdr = async () => [];
      expect(await commandersCheck(f.paths, noHerdr, deps)).toEqual([{ status: "ok", name: "commanders", detail: `opencode live in pane ${f.pane} (tmux)` }]);
      const commanders = JSON.parse(readFileSync(f.paths.commandersFile, "utf8"));
      commanders.commanders.opencode.pid = process.pid;
      writeFileSync(f.paths.commandersFile, JSON.stringify(commanders));
      expect(await commandersCheck(f.paths, noHerdr, deps)).toEqual([{ status: "ok", name: "commanders", detail: "none live (registered: opencode)" }]);
    } finally {
      f.close();
    }
  });

  test("a command run by it records it in commanders.json with its pane, server and pid, no herdr pane", async () => {
    const f = await field();
    try {
      writeFileSync(f.paths.commandersFile, JSON.stringify({ schema_version: 1, commanders: { opencode: { herdr_pane_id: "w1:p9", project_path: f.dir, registered_at: iso(T0), x_future: 1 } } }));
      const env = { ...f.w.env, HERDR_PANE_ID: "", TMUX: `${f.socket},1,0`, TMUX_PANE: f.pane, OPENCODE: "1", OPENCODE_PID: String(f.pid) };
      const deps = testDeps({ cwd: f.dir, env, clock: fakeClock(T0 + 5000) });
      expect(await noteCommander(deps, f.w.root, f.paths)).toEqual({});
      const entry = JSON.parse(readFileSync(f.paths.commandersFile, "utf8")).commanders.opencode;
      expect(entry).toEqual({ project_path: f.dir, registered_at: iso(T0 + 5000), tmux_pane: f.pane, tmux_socket: f.socket, pid: f.pid, x_future: 1 });
    } finally {
      f.close();
    }
  });

  test("registration: found by its marker, its own pid checked against its program", async () => {
    const f = await field();
    try {
      const env = { TMUX: `${f.socket},1,0`, TMUX_PANE: f.pane, OPENCODE: "1", OPENCODE_PID: String(f.pid) };
      expect(await identifyTmuxCommander(env, process.pid, realExec)).toEqual({ harness: "opencode", pane: f.pane, socket: f.socket, pid: f.pid });
      expect(await identifyTmuxCommander({ ...env, OPENCODE: "" }, process.pid, realExec)).toBeUndefined();
      expect(await identifyTmuxCommander({ ...env, TMUX_PANE: "" }, process.pid, realExec)).toBeUndefined();
      // A pid variable naming something else, and no harness among the ancestors: none.
      expect(await identifyTmuxCommander({ ...env, OPENCODE_PID: String(process.pid) }, process.pid, realExec)).toBeUndefined();
    } finally {
      f.close();
    }
  });
});

describe("a harness run as a script (Gemini CLI: `node [flags] .../gemini`)", () => {
  test("registration names it by its script, after the interpreter's flags", async () => {
    const f = await field();
    try {
      // A stand-in whose command line is `node --max-old-space-size=64 <dir>/gemini`, as Gemini CLI's.
      writeFileSync(join(f.w.home, "gemini"), "sleep 600\n");
      f.tmux("new-session", "-d", "-s", "gm", "--", "bash", "-c", `exec -a node bash --norc ${join(f.w.home, "gemini")}`);
      const [pane, pid] = f.tmux("display-message", "-p", "-t", "gm", "#{pane_id} #{pane_pid}").trim().split(" ");
      const env = { TMUX: `${f.socket},1,0`, TMUX_PANE: pane, GEMINI_CLI: "1" };
      const want = { harness: "gemini" as const, pane: pane as string, socket: f.socket, pid: Number(pid) };
      expect(await waitFor(() => identifyTmuxCommander(env, Number(pid), realExec), 10_000, "the stand-in found")).toEqual(want);
    } finally {
      f.close();
    }
  });
});

describe("screenState", () => {
  test.each([
    ["codex idle, empty", "• hello\n\n› Ask Codex to do anything\n\n  gpt · 100% left", { idle: true, inputEmpty: true }],
    ["codex idle, a draft", "• hello\n\n› half a thought\n\n  gpt · 100% left", { idle: true, inputEmpty: false }],
    ["codex busy", "• Working (3s • esc to interrupt)\n\n› Ask Codex to do anything", { idle: false, inputEmpty: true }],
    ["codex, no input line", "loading", { idle: true, inputEmpty: false }],
  ])("%s", (_name, screen, want) => {
    expect(screenState("codex", screen)).toEqual(want);
  });

  // OpenCode 1.18's prompt box as a real herdr pane showed it: every row marked, the last its agent row.
  const box = (rows: string[]) => ["  ┃", ...rows.map((r) => `  ┃  ${r}`), "  ┃", "  ┃  Build · mock-1 mock", "  ╹▀▀▀▀▀▀▀▀▀▀", "   /tmp/project    ctrl+p commands"].join("\n");
  const history = "  ┃\n  ┃  a slow question\n  ┃\n\n     slow answer\n\n     ▣  Build · mock-1 · 5.0s\n\n";
  test.each([
    ["a new session, its placeholder", box(['Ask anything… "Fix broken tests"']), { idle: true, inputEmpty: true }],
    ["after a turn, no placeholder", history + box([]).replace("  ┃\n", "  ┃\n  ┃\n"), { idle: true, inputEmpty: true }],
    ["a draft", history + box(["half a thought"]), { idle: true, inputEmpty: false }],
    ["a draft on its second row", history + box(["", "half a thought"]), { idle: true, inputEmpty: false }],
    ["busy", history + box([]) + "\n  ■■⬝⬝  esc interrupt", { idle: false, inputEmpty: true }],
  ])("opencode: %s", (_name, screen, want) => {
    expect(screenState("opencode", screen)).toEqual(want);
  });

  test("a harness whose module has no plain-tmux rules (its hook wakes it) reads busy: never typed into", () => {
    for (const h of HARNESS_NAMES.filter((n) => HARNESSES[n].commander.tmuxCommander === undefined)) {
      expect(screenState(h, "❯ \n")).toEqual({ idle: false, inputEmpty: false });
    }
    expect(HARNESS_NAMES.some((n) => HARNESSES[n].commander.tmuxCommander === undefined)).toBe(true);
  });
});

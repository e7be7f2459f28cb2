// The Gemini CLI harness (HRN-02): a soldier's private GEMINI_CLI_HOME keeps the user's settings
// and hooks, adds vx's after them, and links everything else of ~/.gemini; the commander's settings.
import { realExec } from "../../src/exec";
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { HARNESSES } from "../../src/harnesses";
import { mergeGeminiSettings, soldierArgs, soldierHome } from "../../src/harnesses/gemini";
import { SettingsShapeError } from "../../src/errors";
import { stateHooks } from "../../src/harnesses/soldier-hooks";

describe("Gemini CLI soldier home", () => {
  const base = { vx: "/opt/vx bin'dir/vx", hooksDir: "/state/hooks/0123456789abcdef", userGeminiDir: "/home/u/.gemini" };

  test("the user's settings and hooks survive, vx's hooks follow them", () => {
    const mine = { name: "mine", type: "command", command: "notify-send done" };
    const launch = soldierHome({ ...base, userSettings: { ui: { theme: "x" }, hooks: { AfterAgent: [{ hooks: [mine] }] } }, userEntries: [] });
    expect(launch.env).toEqual({ GEMINI_CLI_HOME: "/state/hooks/0123456789abcdef/gemini-home" });
    expect(launch.files.map((f) => f.path)).toEqual(["/state/hooks/0123456789abcdef/gemini-home/.gemini/settings.json"]);
    const settings = JSON.parse(launch.files[0]!.content);
    expect(settings.ui).toEqual({ theme: "x" });
    expect(settings.hooks.AfterAgent).toHaveLength(2);
    expect(settings.hooks.AfterAgent[0].hooks[0]).toEqual(mine);
    expect(settings.hooks.AfterAgent[1].hooks[0]).toEqual({
      name: "vx-report-idle",
      type: "command",
      command: `'/opt/vx bin'\\''dir/vx' report idle`,
      timeout: 10_000,
    });
    expect(settings.hooks.Notification[0].matcher).toBe("ToolPermission");
    expect(Object.keys(settings.hooks).sort()).toEqual(["AfterAgent", "AfterTool", "BeforeAgent", "Notification", "SessionStart"]);
  });

  test("every other entry of the user's .gemini is linked, settings.json never", () => {
    const launch = soldierHome({ ...base, userEntries: ["settings.json", "oauth_creds.json", "tmp"] });
    expect(launch.links).toEqual([
      { path: "/state/hooks/0123456789abcdef/gemini-home/.gemini/oauth_creds.json", target: "/home/u/.gemini/oauth_creds.json" },
      { path: "/state/hooks/0123456789abcdef/gemini-home/.gemini/tmp", target: "/home/u/.gemini/tmp" },
    ]);
  });

  test("HRD-04's args trust the camp for the session and skip every dialog; the model only when given", () => {
    expect(soldierArgs()).toEqual(["--skip-trust", "--approval-mode", "yolo"]);
    expect(soldierArgs("gemini-2.5-pro")).toEqual(["--skip-trust", "--approval-mode", "yolo", "--model", "gemini-2.5-pro"]);
  });

  test("through the registry: the user's ~/.gemini is read, the task's identity is the pane's env", () => {
    const home = mkdtempSync(join(tmpdir(), "vx-gemini-"));
    const saved = { HOME: process.env.HOME, GEMINI_CLI_HOME: process.env.GEMINI_CLI_HOME };
    try {
      mkdirSync(join(home, ".gemini"));
      writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ ui: { hideTips: true } }));
      writeFileSync(join(home, ".gemini", "oauth_creds.json"), "{}");
      process.env.HOME = home;
      delete process.env.GEMINI_CLI_HOME;
      const launch = stateHooks("gemini", { vx: "/opt/vx", taskId: "0123456789abcdef", hooksDir: "/state/hooks/0123456789abcdef" });
      expect(launch.env).toEqual({ GEMINI_CLI_HOME: "/state/hooks/0123456789abcdef/gemini-home", VX_TASK_ID: "0123456789abcdef", VX_HARNESS: "gemini" });
      expect(JSON.parse(launch.files[0]!.content).ui).toEqual({ hideTips: true });
      expect(launch.links).toEqual([{ path: "/state/hooks/0123456789abcdef/gemini-home/.gemini/oauth_creds.json", target: join(home, ".gemini", "oauth_creds.json") }]);
    } finally {
      for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("Gemini CLI as a harness (HRN-02)", () => {
  const g = HARNESSES.gemini;

  test("no effort flag: --effort is refused, a model is passed through", async () => {
    expect(() => g.checkModelEffort("gemini-2.5-pro", "high")).toThrow("--effort is not supported for harness gemini");
    expect(() => g.checkModelEffort("gemini-2.5-pro", undefined)).not.toThrow();
    expect(g.soldierArgs("gemini-2.5-pro")).toEqual(["--skip-trust", "--approval-mode", "yolo", "--model", "gemini-2.5-pro"]);
    expect(await g.continueArgs({ camp: "/nowhere", exec: realExec, env: {} })).toEqual(["--resume", "latest"]);
  });

  test("readiness is the input box; a commander is woken by the typed delivery; -p is headless", () => {
    expect(g.ready).toBeInstanceOf(RegExp);
    expect((g.ready as RegExp).test(" *   Type your message or @path/to/file")).toBe(true);
    expect(g.commander.wake.kind).toBe("idle-prompt");
    expect(g.commander.nonInteractive({}, "/usr/bin/node /opt/bin/gemini -p hello")).toBe(true);
    expect(g.commander.nonInteractive({}, "/usr/bin/node /opt/bin/gemini --skip-trust")).toBe(false);
    expect(g.commander.nonInteractive({}, "claude -p x")).toBe(false);
  });

  test("init's settings merge adds the block's files to context.fileName once, keeping the user's", () => {
    const first = mergeGeminiSettings({ ui: { theme: "x" }, context: { fileName: "NOTES.md" } });
    expect(first.changed).toBe(true);
    expect(first.next).toEqual({ ui: { theme: "x" }, context: { fileName: ["NOTES.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"] } });
    expect(mergeGeminiSettings(first.next).changed).toBe(false);
    expect(mergeGeminiSettings({}).next).toEqual({ context: { fileName: ["AGENTS.md", "CLAUDE.md", "GEMINI.md"] } });
    expect(() => mergeGeminiSettings([])).toThrow(SettingsShapeError);
    expect(() => mergeGeminiSettings({ context: { fileName: 3 } })).toThrow(SettingsShapeError);
  });
});

// CMDR-10: screens copied from the real CLI 0.61.0 as a commander in a 220-column tmux pane.
describe("Gemini commander in a plain tmux pane (screenState)", () => {
  const RULE = "─".repeat(80);
  const FOOT = " workspace (/directory)        branch        sandbox";
  const empty = (mark: string) => [" > hello gemini", "✦ hello person", RULE, " YOLO Ctrl+Y", ` ${mark}   Type your message or @path/to/file     `, FOOT].join("\n");
  const busy = [" > slow one", " ⠦ Thinking... (esc to cancel, 6s)", RULE, " YOLO Ctrl+Y", " *   Type your message or @path/to/file", FOOT].join("\n");
  const draft = ["✦ slow answer", RULE, " YOLO Ctrl+Y", " * my draft text        ", FOOT].join("\n");
  const wakeLeft = ["✦ ok", RULE, " YOLO Ctrl+Y", " * A vexillum soldier's status changed:", "   - mission a1: running -> done", FOOT].join("\n");
  test.each([
    ["idle, empty, YOLO mode (`*`)", empty("*"), { idle: true, inputEmpty: true }],
    ["idle, empty, default mode (`>`), past prompts above", empty(">"), { idle: true, inputEmpty: true }],
    ["idle, a person's draft", draft, { idle: true, inputEmpty: false }],
    ["idle, a pasted wake left unsent", wakeLeft, { idle: true, inputEmpty: false }],
    ["busy (the input box stays)", busy, { idle: false, inputEmpty: true }],
  ])("%s", (_name, screen, want) => {
    expect(screenState("gemini", screen)).toEqual(want);
  });

  test("registered by GEMINI_CLI; its program is its script (`node ... /bin/gemini`)", () => {
    expect(HARNESSES.gemini.commander.tmuxCommander).toMatchObject({ marker: "GEMINI_CLI" });
    expect(HARNESSES.gemini.commander.tmuxCommander?.pidVar).toBeUndefined();
    expect(HARNESSES.gemini.commander.tmuxCommander?.program.test("gemini")).toBe(true);
  });
});

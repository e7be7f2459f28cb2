// The GitHub Copilot CLI findings kept as data (src/harnesses/copilot.ts), against screens copied
// from the real CLI 1.0.102 in an 80-column tmux pane (the compat smoke test runs the real thing).
import { realExec } from "../../src/exec";
import { describe, expect, test } from "bun:test";
import { screenState } from "../../src/backends/commander-screen";
import { HARNESSES } from "../../src/harnesses";
import { COPILOT, COPILOT_SCREEN, COPILOT_WAKE_HOOK, copilot, copilotHooksJson, copilotSoldierArgs, copilotStateHooks, copilotUnsentText } from "../../src/harnesses/copilot";
import { COMMANDER_NAMES, HARNESS_NAMES } from "../../src/harnesses/names";

const RULE = "─".repeat(80);
const idle = [" ● ok", " /tmp/p [⎇ main]", RULE, "❯ ", RULE, " ← open sidebar · Interactive · Manual Approval · / commands             mock-1"].join("\n");
const idleWithText = [" /tmp/p [⎇ main]", RULE, "❯ 3", RULE, " Interactive · Manual Approval · @ files · # issues                      mock-1"].join("\n");
const loading = [" /tmp/p [⎇ main]", RULE, "❯ ", RULE, " ◉ Loading: 1 plugin, 10 hooks, 2 skills                                 mock-1"].join("\n");
const typed = [" /tmp/p [⎇ main]", RULE, "❯ queued msg", RULE, " ◎ Working · 86 B esc esc interrupt · ctrl+q enqueue                     mock-1"].join("\n");

describe("Copilot screens", () => {
  test("idle and busy footers", () => {
    expect(COPILOT_SCREEN.ready.test(idle)).toBe(true);
    expect(COPILOT_SCREEN.busy.test(idle)).toBe(false);
    expect(COPILOT_SCREEN.busy.test(typed)).toBe(true);
    expect(COPILOT_SCREEN.ready.test(typed)).toBe(false);
    expect(COPILOT_SCREEN.ready.test(idleWithText)).toBe(true);
    expect(COPILOT_SCREEN.ready.test(loading)).toBe(false);
    expect(COPILOT_SCREEN.loading.test(loading)).toBe(true);
  });

  test("the input box's text", () => {
    expect(copilotUnsentText(idle)).toBe("");
    expect(copilotUnsentText(typed)).toBe("queued msg");
    expect(copilotUnsentText(idleWithText)).toBe("3");
    expect(copilotUnsentText("no box here")).toBe("");
  });
});

describe("Copilot launch", () => {
  test("soldier args carry model and effort only when set", () => {
    expect(copilotSoldierArgs()).toEqual(["--allow-all"]);
    expect(copilotSoldierArgs("gpt-5.4", "high")).toEqual(["--allow-all", "--model", "gpt-5.4", "--reasoning-effort", "high"]);
    expect(COPILOT.efforts).toContain("xhigh");
  });

  test("state hooks: a plugin under the hooks dir, the vx path quoted", () => {
    const launch = copilotStateHooks("/o'dd dir/vx", "/state/hooks/t1");
    expect(launch.args).toEqual(["--plugin-dir", "/state/hooks/t1/copilot-plugin"]);
    expect(launch.files.map((f) => f.path)).toEqual(["/state/hooks/t1/copilot-plugin/.plugin/plugin.json", "/state/hooks/t1/copilot-plugin/hooks/hooks.json"]);
    const hooks = (copilotHooksJson("/o'dd dir/vx") as { hooks: Record<string, { bash: string; matcher?: string }[]> }).hooks;
    expect(Object.keys(hooks)).toEqual(["userPromptSubmitted", "notification", "postToolUse", "agentStop"]);
    expect(hooks.agentStop?.[0]?.bash).toBe(`'/o'\\''dd dir/vx' report idle`);
    expect(hooks.notification?.[0]?.matcher).toBe("permission_prompt");
  });
});

describe("the copilot harness module (HRN-02)", () => {
  test("is in the registry and the commander list, under its own name", () => {
    expect(HARNESSES.copilot).toBe(copilot);
    expect(HARNESS_NAMES).toContain("copilot");
    expect(COMMANDER_NAMES).toContain("copilot");
  });

  test("state hooks: the plugin dir argument, the trust-skipping environment, files outside the camp", () => {
    const launch = copilot.stateHooks({ vx: "/opt/v x/vx", hooksDir: "/state/hooks/0000000000000001" });
    expect(launch.args).toEqual(["--plugin-dir", "/state/hooks/0000000000000001/copilot-plugin"]);
    expect(launch.env).toEqual({ COPILOT_ALLOW_ALL: "true" });
    for (const f of launch.files) expect(f.path.startsWith("/state/hooks/0000000000000001/copilot-plugin/")).toBe(true);
  });

  test("any model passes; an effort outside the CLI's list is refused with the list", () => {
    expect(() => copilot.checkModelEffort("whatever-model", "high")).not.toThrow();
    expect(() => copilot.checkModelEffort(undefined, "turbo")).toThrow(/unknown effort "turbo" for harness copilot \(expected one of none, minimal, low, medium, high, xhigh, max\)/);
    expect(copilot.soldierArgs("m", "low")).toEqual(["--allow-all", "--model", "m", "--reasoning-effort", "low"]);
  });

  test("as a commander: typed wakes while idle, and the agentStop hook drains the queue", async () => {
    expect(copilot.commander.wake.kind).toBe("idle-prompt");
    const hook = JSON.parse(COPILOT_WAKE_HOOK);
    expect(hook.hooks.agentStop[0].bash).toContain("sentinel drain");
    expect(await copilot.continueArgs({ camp: "/nowhere", exec: realExec, env: {} })).toEqual(["--continue"]);
  });
});

describe("AWT-01 for a Copilot hook runner", () => {
  test("an await run by Copilot (it runs the project's Claude Stop hook and waits for it) is a no-op; others are not", () => {
    const env = { COPILOT_CLI: "1" };
    expect(copilot.commander.nonInteractive(env, "/opt/copilot/node_modules/@github/copilot-linux-x64/copilot")).toBe(true);
    expect(copilot.commander.nonInteractive(env, "copilot --allow-all")).toBe(true);
    expect(copilot.commander.nonInteractive(env, "claude")).toBe(false);
    expect(copilot.commander.nonInteractive(env)).toBe(false);
    expect(copilot.commander.nonInteractive({}, "copilot")).toBe(false);
  });
});

// CMDR-10: screens copied from the real CLI 1.0.102 as a commander in a 220-column tmux pane.
describe("Copilot commander in a plain tmux pane (screenState)", () => {
  const busy = [" ❯ slow one", " /tmp/p [⎇ main%]", RULE, "❯         ", RULE, " ● Working esc esc edit prompt"].join("\n");
  const draft = [" ● slow answer", " /tmp/p [⎇ main%]", RULE, "❯ my draft text", RULE, " Interactive · Allow All · @ files · # issues"].join("\n");
  const empty = [" ❯ slow one", " ● slow answer", " /tmp/p [⎇ main%]", RULE, "❯              ", RULE, " ← open sidebar · Interactive · Allow All · / commands · ? help"].join("\n");
  test.each([
    ["idle, empty input line (a past prompt above it)", empty, { idle: true, inputEmpty: true }],
    ["idle, a person's draft", draft, { idle: true, inputEmpty: false }],
    ["busy", busy, { idle: false, inputEmpty: true }],
    ["loading, no footer yet", " Copilot v1.0.102", { idle: true, inputEmpty: false }],
  ])("%s", (_name, screen, want) => {
    expect(screenState("copilot", screen)).toEqual(want);
  });

  test("registered by COPILOT_CLI, with its own pid from COPILOT_LOADER_PID (the native copilot binary)", () => {
    expect(copilot.commander.tmuxCommander).toMatchObject({ marker: "COPILOT_CLI", pidVar: "COPILOT_LOADER_PID" });
    expect(copilot.commander.tmuxCommander?.program.test("copilot")).toBe(true);
  });
});

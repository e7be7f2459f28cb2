// The GitHub Copilot CLI findings kept as data (src/harnesses/copilot.ts), against screens copied
// from the real CLI 1.0.102 in an 80-column tmux pane (the compat smoke test runs the real thing).
import { describe, expect, test } from "bun:test";
import { COPILOT, COPILOT_SCREEN, copilotHooksJson, copilotSoldierArgs, copilotStateHooks, copilotUnsentText } from "../../src/harnesses/copilot";

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

// The draft Gemini CLI harness data (issue 16 item 2): a soldier's private GEMINI_CLI_HOME keeps
// the user's settings and hooks, adds vx's after them, and links everything else of ~/.gemini.
import { describe, expect, test } from "bun:test";
import { soldierArgs, soldierHome } from "../../src/harnesses/gemini";

describe("Gemini CLI soldier home", () => {
  const base = { vx: "/opt/vx bin'dir/vx", taskId: "0123456789abcdef", hooksDir: "/state/hooks/0123456789abcdef", userGeminiDir: "/home/u/.gemini" };

  test("the user's settings and hooks survive, vx's hooks follow them with the task in their env", () => {
    const mine = { name: "mine", type: "command", command: "notify-send done" };
    const launch = soldierHome({ ...base, userSettings: { ui: { theme: "x" }, hooks: { AfterAgent: [{ hooks: [mine] }] } }, userEntries: [] });
    expect(launch.env).toEqual({ VX_TASK_ID: base.taskId, VX_HARNESS: "gemini", GEMINI_CLI_HOME: "/state/hooks/0123456789abcdef/gemini-home" });
    expect(launch.files.map((f) => f.path)).toEqual(["/state/hooks/0123456789abcdef/gemini-home/.gemini/settings.json"]);
    const settings = JSON.parse(launch.files[0]!.content);
    expect(settings.ui).toEqual({ theme: "x" });
    expect(settings.hooks.AfterAgent).toHaveLength(2);
    expect(settings.hooks.AfterAgent[0].hooks[0]).toEqual(mine);
    expect(settings.hooks.AfterAgent[1].hooks[0]).toEqual({
      name: "vx-report-idle", type: "command", command: `'/opt/vx bin'\\''dir/vx' report idle`, timeout: 10_000,
      env: { VX_TASK_ID: base.taskId, VX_HARNESS: "gemini" },
    });
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
});

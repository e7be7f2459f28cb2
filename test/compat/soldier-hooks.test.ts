// The state hooks of tmux soldiers (TMX-05) against the real harnesses: each runs in a real leased
// camp in a tmux pane, started with HRD-04's args plus the launch `stateHooks` gives, answers a
// pasted prompt from the mock model, and its `states/<id>.json` goes working -> idle (blocked
// and back to working around a permission dialog where the harness shows one), while the camp's
// `git status` stays empty. The permission turns of Claude Code and Codex run without HRD-04's
// bypass flags: with them a soldier never sees a dialog.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { harnessOf } from "../../src/harnesses";
import { claudeEnv, seedClaude } from "./claude-setup";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import type { HarnessName } from "./harnesses";
import type { LoggedRequest, Reply } from "./mock-models";
import { seedOpencode } from "./opencode-setup";
import { PI_ENV, seedPi } from "./pi-setup";
import { type Camp, type Soldier, allowOnce, campStatus, commitInit, held, hooksDirFiles, isToolResult, leaseCamp, startSoldier, statesOf, submit, waitState } from "./soldier-kit";
import { type World, screenShows, world } from "./world";

const HOLD_MS = 3000;
// Codex's title-generation turn quotes the user's prompt after its own instruction.
const TITLE_TURN = "Generate a concise, single-line task title";
const mineOf = (prompt: string) => (r: LoggedRequest) => r.lastUser.includes(prompt) && !r.lastUser.includes(TITLE_TURN);

const soldiers: Soldier[] = [];
function launch(w: World, camp: Camp, harness: HarnessName, args: string[]): Soldier {
  const s = startSoldier(w, camp, harness, args);
  soldiers.push(s);
  return s;
}
afterAll(() => {
  for (const s of soldiers) s.stop();
});

function expectOutsideCamp(s: Soldier): void {
  for (const f of s.launch.files) expect(f.path.startsWith(`${s.path}/`)).toBe(false);
  expect(s.hooksDir.startsWith(`${s.path}/`)).toBe(false);
  expect(hooksDirFiles(s)).toEqual(s.launch.files.map((f) => f.path.slice(s.hooksDir.length + 1)).sort());
}

/** When the mock sent its last held reply of the turn that started at `t0`. */
function lastReplyAt(w: World, t0: number, held: (r: LoggedRequest) => boolean): number {
  return Math.max(
    ...w.models
      .turns()
      .filter((r) => r.at >= t0 && held(r))
      .map((r) => r.at + HOLD_MS),
  );
}

/** One text turn held HOLD_MS by the mock: working while it runs, idle only after it ends. */
async function textTurn(w: World, s: Soldier, harness: HarnessName, prompt: string): Promise<void> {
  const mine = mineOf(prompt);
  w.models.respond((r) => (mine(r) ? held(HOLD_MS) : undefined));
  try {
    const from = s.trail.length;
    const t0 = Date.now();
    const req = await submit(w, s, prompt, mine);
    const working = await waitState(s, "working", from);
    expect(campStatus(s)).toBe("");
    const idle = await waitState(s, "idle", from);
    // Not idle while the model was still answering (Codex's title turn ends long before).
    expect(idle.seen).toBeGreaterThanOrEqual(req.at + HOLD_MS);
    const last = lastReplyAt(w, t0, mine);
    console.log(`compat: ${harness} soldier Enter -> working ${working.seen - t0} ms; last reply sent -> idle ${idle.seen - last} ms`);
    expect(statesOf(s, from)).toEqual(["working", "idle"]);
    expect(idle.source).toBe(harness);
    expect(campStatus(s)).toBe("");
    expectOutsideCamp(s);
  } finally {
    w.models.respond(undefined);
  }
}

/**
 * A tool call that needs permission: blocked while the dialog shows, working once it is answered
 * (the next reply is held HOLD_MS), idle at the end; the tool ran outside the camp.
 */
async function permissionTurn(w: World, s: Soldier, harness: HarnessName, opts: { prompt: string; call: Reply; dialog: RegExp; touched: string }): Promise<void> {
  const mine = mineOf(opts.prompt);
  w.models.respond((r) => (isToolResult(r) ? held(HOLD_MS) : mine(r) ? opts.call : undefined));
  try {
    const from = s.trail.length;
    const t0 = Date.now();
    await submit(w, s, opts.prompt, mine);
    const blocked = await waitState(s, "blocked", from);
    await screenShows(w, s.pane, opts.dialog);
    expect(campStatus(s)).toBe("");
    const at = s.trail.indexOf(blocked);
    const answered = await allowOnce(w, s, opts.dialog, at);
    const idle = await waitState(s, "idle", at);
    const last = lastReplyAt(w, t0, isToolResult);
    console.log(`compat: ${harness} soldier blocked -> working (Enter in between) ${answered.seen - blocked.seen} ms; last reply sent -> idle ${idle.seen - last} ms`);
    expect(statesOf(s, from)).toEqual(["working", "blocked", "working", "idle"]);
    expect(existsSync(opts.touched)).toBe(true);
    expect(campStatus(s)).toBe("");
    expectOutsideCamp(s);
  } finally {
    w.models.respond(undefined);
  }
}

describe("Claude Code soldier", () => {
  let w: World;
  let camps: Camp[];
  beforeAll(async () => {
    // IS_SANDBOX: root may use --dangerously-skip-permissions (HRD-04) only with it.
    w = await world({ harness: "claude", commander: "claude", prepare: (x) => ({ ...claudeEnv(x.models.url), IS_SANDBOX: "1" }) });
    commitInit(w);
    camps = [await leaseCamp(w, "claude"), await leaseCamp(w, "claude")];
    seedClaude(
      w.home,
      camps.map((c) => c.path),
    );
  });
  afterAll(async () => {
    await w?.close();
  });

  test("with HRD-04's args a text turn reports working, then idle once it ends", async () => {
    const s = launch(w, camps[0]!, "claude", harnessOf("claude").soldierArgs());
    await screenShows(w, s.pane, /❯/, 90_000);
    expect(campStatus(s)).toBe("");
    await textTurn(w, s, "claude", "say hello soldier");
  });

  test("in the default permission mode a Bash dialog reports blocked, its answer working", async () => {
    const s = launch(w, camps[1]!, "claude", ["--permission-mode", "default", "--prompt-suggestions", "false"]);
    await screenShows(w, s.pane, /❯/, 90_000);
    const touched = join(w.home, "touched-by-claude");
    await permissionTurn(w, s, "claude", {
      prompt: "touch a file outside",
      call: { tool: { name: "Bash", input: { command: `touch '${touched}'`, description: "touch a file" } } },
      dialog: /Do you want to proceed/,
      touched,
    });
  });
});

describe("Codex soldier", () => {
  let w: World;
  let camps: Camp[];
  beforeAll(async () => {
    w = await world({ harness: "codex", commander: "codex", prepare: (x) => seedCodex(x.home, x.project, x.models.url) });
    commitInit(w);
    camps = [await leaseCamp(w, "codex"), await leaseCamp(w, "codex")];
    // Trusted folders skip Codex's trust dialog (the launch flow answers it otherwise).
    for (const c of camps) appendFileSync(join(w.env.CODEX_HOME!, "config.toml"), `\n[projects."${c.path}"]\ntrust_level = "trusted"\n`);
  });
  afterAll(async () => {
    if (w) stopCodexDaemon(w.exe, w.env);
    await w?.close();
  });

  test("with HRD-04's args a text turn reports working, then idle once it ends, not when the title turn does", async () => {
    const s = launch(w, camps[0]!, "codex", harnessOf("codex").soldierArgs());
    await screenShows(w, s.pane, /Ask Codex to do anything/, 90_000);
    await textTurn(w, s, "codex", "say hello soldier");
    // The title turn ran and ended during the soldier's held turn.
    expect(w.models.turns().some((r) => r.lastUser.includes(TITLE_TURN))).toBe(true);
  });

  test("asking for approval: an escalated command reports blocked, its approval working", async () => {
    const s = launch(w, camps[1]!, "codex", ["-c", 'approval_policy="on-request"', "-c", 'sandbox_mode="workspace-write"']);
    await screenShows(w, s.pane, /Ask Codex to do anything/, 90_000);
    const touched = join(w.home, "touched-by-codex");
    await permissionTurn(w, s, "codex", {
      prompt: "touch a file outside",
      call: { tool: { name: "exec_command", input: { cmd: `touch '${touched}'`, sandbox_permissions: "require_escalated", justification: "compat" } } },
      dialog: /Would you like to run the following command/,
      touched,
    });
  });
});

describe("Pi soldier", () => {
  let w: World;
  let camp: Camp;
  beforeAll(async () => {
    w = await world({ harness: "pi", commander: "pi", env: PI_ENV, prepare: (x) => seedPi(x.home, x.models.url) });
    commitInit(w);
    camp = await leaseCamp(w, "pi");
  });
  afterAll(async () => {
    await w?.close();
  });

  // Pi has no permission dialogs.
  test("with HRD-04's args a text turn reports working, then idle once it ends", async () => {
    const s = launch(w, camp, "pi", harnessOf("pi").soldierArgs());
    await screenShows(w, s.pane, /pi-state\.ts[\s\S]*mock-1/, 90_000);
    await textTurn(w, s, "pi", "say hello soldier");
  });
});

describe("OpenCode soldier", () => {
  let w: World;
  let s: Soldier;
  beforeAll(async () => {
    w = await world({ harness: "opencode", commander: "opencode", prepare: (x) => seedOpencode(x.home, x.models.url) });
    commitInit(w);
    s = launch(w, await leaseCamp(w, "opencode"), "opencode", harnessOf("opencode").soldierArgs());
    // The first start installs OpenCode's own packages into its config dir (npm registry).
    await screenShows(w, s.pane, /Ask anything/, 180_000);
  });
  afterAll(async () => {
    await w?.close();
  });

  test("with HRD-04's args a text turn reports working, then idle once it ends", async () => {
    await textTurn(w, s, "opencode", "say hello soldier");
  });

  // HRD-04 gives OpenCode no bypass: a path outside the camp asks (external_directory).
  test("a command outside the camp reports blocked, its approval working, then idle", async () => {
    const touched = join(w.home, "touched-by-opencode");
    await permissionTurn(w, s, "opencode", {
      prompt: "touch a file outside",
      call: { tool: { name: "bash", input: { command: `touch '${touched}'`, description: "touch a file" } } },
      dialog: /Permission required/,
      touched,
    });
  });
});

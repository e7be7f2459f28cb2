// The tmux launch answers a harness's folder-trust dialog the way that harness takes it (TMX-02):
// Claude Code's options carry no digits and its cursor starts on "No, exit", Codex ignores digits
// and takes Enter on "Trust and continue". The screens are the real ones (Claude Code 2.1.332,
// Codex 0.171.0, 220 columns, trailing spaces cut).
import { describe, expect, test } from "bun:test";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { launchTmuxSoldier } from "../../src/backends/tmux/launch";
import { trustKey } from "../../src/backends/readiness";
import { LIFECYCLE_RULES } from "../../src/soldiers/terminal";
import { loadTask } from "../../src/state/tasks";
import { fakeClock, testDeps } from "../deps";
import { memoryTmux } from "../fakes/tmux-memory";
import { taskId, world } from "../sentinel-kit";

const claudeDialog = (cursorOnYes: boolean) =>
  [
    "─".repeat(80),
    " Accessing workspace:",
    "",
    " /tmp/camps/1/project",
    "",
    " Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source project, or work from your team).",
    "",
    " Claude Code'll be able to read, edit, and execute files here.",
    "",
    " Security guide",
    "",
    cursorOnYes ? "   No, exit" : " ❯ No, exit",
    cursorOnYes ? " ❯ Yes, I trust this folder" : "   Yes, I trust this folder",
    "",
    " Enter to confirm · Esc to cancel",
    "",
  ].join("\n");

const CODEX_DIALOG = [
  "",
  "  Folder access",
  "  /tmp/camps/1/project",
  "",
  "  Trust this folder? Codex can read, edit, and run files here, subject to your permission settings. Folder settings can run code automatically,",
  "  trust decision will be saved.",
  "",
  "› 1. Trust and continue",
  "  2. Back to Agent Command Center",
  "",
  "  enter continue · esc back",
  "",
].join("\n");

const CODEX_READY = "  >_ OpenAI Codex (v0.171.0)\n  permissions: YOLO mode\n› Ask Codex to do anything\n";

describe("trustKey", () => {
  test.each([
    ["Claude Code, cursor on No", claudeDialog(false), "Down"],
    ["Claude Code, cursor on Yes", claudeDialog(true), "Enter"],
    // The question line above starts with "Trust" too; only the list's rows are options.
    ["Codex, cursor on Trust and continue", CODEX_DIALOG, "Enter"],
    ["a list with the accepting option above the cursor", " Trust this folder?\n\n   1. Yes, I trust this folder\n ❯ 2. No, exit\n", "Up"],
    ["numbered options and no cursor shown", "Do you trust this folder?\n  1. Yes, I trust this folder\n  2. No\n", "1"],
    ["no option accepts", "Trust this folder?\n❯ 1. Back\n  2. Quit\n", undefined],
  ])("%s", (_name, screen, key) => expect(trustKey(screen)).toBe(key));
});

/** A pending tmux task in a real camp, and a fake tmux whose dialog reacts to keys as the harness's does. */
async function launchThrough(
  w: ReturnType<typeof world>,
  harness: "claude" | "codex",
  dialog: string,
  react: (keys: string[]) => string | undefined,
  before?: { text: string; forMs: number },
  redraw?: (text: string) => string,
) {
  const { dir, paths } = w.addProject();
  const id = taskId();
  const camp = await acquireCamp(paths, { project: dir, taskId: id, base: "main", exec: realExec });
  const task = w.writeTask(paths, {
    id,
    status: "pending",
    backend: "tmux",
    harness,
    prompt: "fix it",
    camp_path: camp.path,
    camp_branch: camp.branch,
    camp_base: "main",
    camp_slot: camp.slot,
  });
  const tmux = memoryTmux();
  const clock = fakeClock();
  const { newSession, sendKeys, capture } = tmux;
  let shown = 0;
  tmux.newSession = async (r) => {
    const ids = await newSession(r);
    shown = clock.now();
    tmux.sessions.get(r.name)!.text = before ? before.text : dialog;
    return ids;
  };
  // The screen before the dialog stays for `before.forMs` of the launch's own (virtual) time.
  tmux.capture = async (name, lines) => {
    const s = tmux.session(name);
    if (before && s?.text === before.text && clock.now() - shown >= before.forMs) s.text = dialog;
    if (redraw && s) s.text = redraw(s.text);
    return capture(name, lines);
  };
  tmux.sendKeys = async (name, keys) => {
    await sendKeys(name, keys);
    const next = react(keys);
    if (next !== undefined) tmux.session(name)!.text = next;
  };
  const deps = testDeps({ cwd: dir, env: w.env, clock });
  const result = await launchTmuxSoldier({ deps, paths, tmux, hooks: { args: [], env: {}, files: [] }, rules: LIFECYCLE_RULES }, task);
  const session = [...tmux.sessions.values()][0];
  return { result, keys: session?.keys ?? [], pasted: session?.pasted ?? [], saved: loadTask(paths, id)?.value };
}

describe("the tmux launch and a folder-trust dialog", () => {
  test("Claude Code's: Down to 'Yes, I trust this folder', then Enter; the prompt goes in once", async () => {
    using w = world();
    let onYes = false;
    const r = await launchThrough(w, "claude", claudeDialog(false), (keys) => {
      if (keys[0] === "Down") return claudeDialog((onYes = true));
      if (keys[0] === "Enter") return onYes ? "╭ Claude Code\n❯ \n? for shortcuts\n" : "";
      return undefined;
    });
    expect({ error: r.result.error, status: r.saved?.status }).toEqual({ error: undefined, status: "running" });
    expect(r.keys).toEqual([["Down"], ["Enter"]]);
    expect(r.pasted).toHaveLength(1);
  });

  test("Claude Code's, drawing a Down late: no second Down overshoots to 'No, exit'; Enter once it shows Yes", async () => {
    using w = world();
    // The list wraps, as a selection list may: a second Down would land back on "No, exit".
    let cursor = 0;
    let pendingDowns = 0;
    let polls = 0;
    const r = await launchThrough(
      w,
      "claude",
      claudeDialog(false),
      (keys) => {
        if (keys[0] === "Down") {
          pendingDowns++;
          return undefined; // drawn only a few polls later (see the capture below)
        }
        if (keys[0] === "Enter") return cursor === 1 ? "╭ Claude Code\n❯ \n? for shortcuts\n" : "Run claude again and choose Yes";
        return undefined;
      },
      undefined,
      (text) => {
        // Each capture is a poll; a pending Down is drawn on the sixth poll after it was pressed.
        if (pendingDowns > 0 && ++polls >= 6) {
          cursor = (cursor + pendingDowns) % 2;
          pendingDowns = 0;
          polls = 0;
          return claudeDialog(cursor === 1);
        }
        return text;
      },
    );
    expect({ error: r.result.error, status: r.saved?.status }).toEqual({ error: undefined, status: "running" });
    expect(r.keys).toEqual([["Down"], ["Enter"]]);
  });

  test("Codex's: Enter on 'Trust and continue' (a digit does nothing there)", async () => {
    using w = world();
    const r = await launchThrough(w, "codex", CODEX_DIALOG, (keys) => (keys[0] === "Enter" ? CODEX_READY : undefined));
    expect({ error: r.result.error, status: r.saved?.status }).toEqual({ error: undefined, status: "running" });
    expect(r.keys).toEqual([["Enter"]]);
    expect(r.pasted).toHaveLength(1);
  });

  test("Codex's start-up screens are not taken for readiness: the prompt goes in after its dialog", async () => {
    using w = world();
    // What Codex 0.171.0 shows for 2 s before its dialog: a warning line, then its composer while loading.
    const loading = [
      "WARNING: proceeding, even though we could not create PATH aliases",
      "  >_ OpenAI Codex (v0.171.0)",
      "     /tmp/camps/1/project",
      "› Ask Codex to do anything",
      "  ? for shortcuts",
      "",
    ].join("\n");
    const r = await launchThrough(w, "codex", CODEX_DIALOG, (keys) => (keys[0] === "Enter" ? CODEX_READY : undefined), { text: loading, forMs: 2000 });
    expect({ error: r.result.error, status: r.saved?.status }).toEqual({ error: undefined, status: "running" });
    expect(r.keys).toEqual([["Enter"]]);
    expect(r.pasted).toHaveLength(1);
  });

  test("a key lost while the dialog was drawn is pressed again once the screen has not changed for a while", async () => {
    using w = world();
    let presses = 0;
    const r = await launchThrough(w, "codex", CODEX_DIALOG, (keys) => (keys[0] === "Enter" && ++presses === 2 ? CODEX_READY : undefined));
    expect(r.saved?.status).toBe("running");
    expect(r.keys).toEqual([["Enter"], ["Enter"]]);
  });
});

describe("the tmux launch and a task changed under it", () => {
  test("failed by another writer while its session was being made: the session is killed, nothing more saved, and the error says what to do", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    const id = taskId();
    const camp = await acquireCamp(paths, { project: dir, taskId: id, base: "main", exec: realExec });
    const task = w.writeTask(paths, {
      id,
      status: "pending",
      backend: "tmux",
      harness: "codex",
      prompt: "fix it",
      camp_path: camp.path,
      camp_branch: camp.branch,
      camp_base: "main",
      camp_slot: camp.slot,
    });
    const tmux = memoryTmux();
    const { newSession } = tmux;
    // Another writer changes the task between the launch's intent and its `running` save.
    tmux.newSession = async (r) => {
      const ids = await newSession(r);
      w.writeTask(paths, { ...loadTask(paths, id)!.value, status: "failed" });
      return ids;
    };
    const deps = testDeps({ cwd: dir, env: w.env, clock: fakeClock() });
    const result = await launchTmuxSoldier({ deps, paths, tmux, hooks: { args: [], env: {}, files: [] }, rules: LIFECYCLE_RULES }, task);
    expect(result.error).toBe(`task ${id} changed while its soldier was being launched (it is now failed) - the launch stopped there; 'vx status' shows the task as it is now`);
    expect(tmux.sessions.size).toBe(0);
    expect(loadTask(paths, id)?.value.status).toBe("failed");
  });
});

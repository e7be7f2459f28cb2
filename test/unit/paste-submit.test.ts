// A tmux paste for a harness that can drop its Enter (Harness.unsent; Gemini CLI drops an Enter
// within 40 ms of a paste, and one pressed as its session finishes initialising): Enter again
// only while the prompt still sits alone in the input box, judged against the screen before the
// paste (pasteLeftUnsent); never for a harness whose Enter is never lost, never into a dialog.
import { describe, expect, test } from "bun:test";
import { pasteAndSubmit } from "../../src/backends/tmux/launch";
import { MAX_RESENDS, enterWhileUnsent, pasteLeftUnsent } from "../../src/backends/unsent";
import { fakeClock } from "../deps";
import { memoryTmux } from "../fakes/tmux-memory";

const RULE = "─".repeat(60);
const screen = (...box: string[]) => ["✦ earlier answer", "", RULE, " YOLO Ctrl+Y", ...box, " workspace (/directory)"].join("\n");
// Gemini CLI 0.61's empty box has a hint above its rule that a typed box hides (seen on the real CLI).
const EMPTY = screen(" *   Type your message or @path/to/file").replace("\n\n", `\n${" ".repeat(40)}? for shortcuts\n`);
const HELD = screen(" * [Pasted Text: 9 lines]");
const WAKE = "A vexillum soldier's status changed:\n  - mission a1: running -> done";
const WAKE_LEFT = screen(" * A vexillum soldier's status changed:", "     - mission a1: running -> done");
// The prompt was taken: its echo, the answer, a new empty box.
const SENT = [
  "✦ earlier answer",
  " > A vexillum soldier's status changed:",
  "   - mission a1: running -> done",
  "✦ on it",
  RULE,
  " YOLO Ctrl+Y",
  " *   Type your message or @path/to/file",
  " workspace (/directory)",
].join("\n");
// A permission dialog replaced the box, the prompt's echo above it.
const DIALOG = [
  "✦ earlier answer",
  " > A vexillum soldier's status changed:",
  "   - mission a1: running -> done",
  " Allow execution of: 'git push'?",
  " ● 1. Allow once",
  "   2. No",
  " workspace (/directory)",
].join("\n");

describe("pasteLeftUnsent", () => {
  test.each([
    ["the text itself left in the box", WAKE_LEFT, true],
    ["Gemini's collapsed paste left in the box", HELD, true],
    ["the prompt taken (echo, answer, new empty box)", SENT, false],
    ["a dialog with the prompt's echo above it", DIALOG, false],
    ["a person's keys after the pasted text", screen(" * A vexillum soldier's status changed:", "     - mission a1: running -> done and more"), false],
    ["nothing drawn yet", EMPTY, false],
    [
      "a redraw that brings other text",
      ["✦ earlier answer", " Select a theme", " * A vexillum soldier's status changed:", "   - mission a1: running -> done", " workspace (/directory)"].join("\n"),
      false,
    ],
    ["something else in the box", screen(" * git push --force"), false],
  ])("%s", (_name, after, want) => {
    expect(pasteLeftUnsent(EMPTY, after, WAKE)).toBe(want);
  });

  test("start-up tips gone with the placeholder (a soldier's first prompt): still the text alone", () => {
    expect(pasteLeftUnsent(`Tips for getting started:\n1. Ask questions\n2. Be specific\n${EMPTY}`, HELD, WAKE)).toBe(true);
  });

  test("a text with a `* ` bullet line: not recognised, so no Enter (the safe way to be wrong)", () => {
    const text = "fix these:\n* the parser\n* the printer";
    expect(pasteLeftUnsent(EMPTY, screen(" * fix these:", "   * the parser", "   * the printer"), text)).toBe(false);
  });

  test("the wake taken, a person typing a draft below its echo (history rows repeat): no Enter", () => {
    const before = ["✦ ok", " > a slow question", "✦ ok", RULE, " YOLO Ctrl+Y", " *   Type your message or @path/to/file", " workspace (/directory)"].join("\n");
    const after = [
      "✦ ok",
      " > a slow question",
      "✦ ok",
      " > A vexillum soldier's status changed:",
      "   - mission a1: running -> done",
      "✦ ok",
      RULE,
      " YOLO Ctrl+Y",
      " * half a thought",
      " workspace (/directory)",
    ].join("\n");
    expect(pasteLeftUnsent(before, after, WAKE)).toBe(false);
  });

  test("the same text sent before, now sent again and a dialog under it: no Enter", () => {
    const old = ["✦ earlier answer", " > A vexillum soldier's status changed:", "   - mission a1: running -> done", "✦ seen"];
    const before = [...old, RULE, " YOLO Ctrl+Y", " *   Type your message or @path/to/file", " workspace (/directory)"].join("\n");
    const after = [...old, " > A vexillum soldier's status changed:", "   - mission a1: running -> done", " Allow execution of: 'git push'?", " ● 1. Allow once", " workspace (/directory)"].join("\n");
    expect(pasteLeftUnsent(before, after, WAKE)).toBe(false);
  });

  test("a screen read before the paste that was not the empty box: never", () => {
    expect(pasteLeftUnsent("", WAKE_LEFT, WAKE)).toBe(false);
  });
});

function pasteShows(after: string) {
  const tmux = memoryTmux();
  const s = tmux.add("soldier", { text: EMPTY });
  const paste = tmux.paste.bind(tmux);
  tmux.paste = async (session, text) => {
    await paste(session, text);
    s.text = after;
  };
  return { tmux, s };
}

describe("pasteAndSubmit", () => {
  test("Gemini CLI: the prompt left in the box gets Enter again until it is taken", async () => {
    const { tmux, s } = pasteShows(HELD);
    const real = tmux.sendKeys.bind(tmux);
    // The second Enter is the one taken.
    tmux.sendKeys = async (session, keys) => {
      await real(session, keys);
      if (s.keys.length === 2) s.text = SENT;
    };
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(s.pasted).toEqual(["do the work"]);
    expect(s.keys).toEqual([["Enter"], ["Enter"]]);
  });

  test("Gemini CLI: a prompt taken by the paste's own Enter gets no second one", async () => {
    const { tmux, s } = pasteShows(SENT);
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(s.keys).toEqual([]);
  });

  test("Gemini CLI: a dialog showing under the prompt's echo gets no Enter (it would pick an option)", async () => {
    const { tmux, s } = pasteShows(DIALOG);
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", WAKE, "gemini");
    expect(s.keys).toEqual([]);
  });

  test("a box that never empties gets at most three Enters", async () => {
    const { tmux, s } = pasteShows(HELD);
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(s.keys).toEqual([["Enter"], ["Enter"], ["Enter"]]);
  });

  test("Claude Code: one paste, nothing more, whatever the screen shows", async () => {
    const { tmux, s } = pasteShows(HELD);
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "claude");
    expect(s.pasted).toEqual(["do the work"]);
    expect(s.keys).toEqual([]);
  });
});

/** A watch over a scripted run of screens (the last one stays); records the Enters. */
function scripted(screens: string[], holds = (_: string) => true) {
  const clock = fakeClock();
  let looks = 0;
  let enters = 0;
  const tmux = {
    capture: async () => screens[Math.min(looks++, screens.length - 1)] as string,
    sendKeys: async () => {
      enters++;
    },
  };
  // The readiness wait unscaled (30 s), looked at every second.
  return { watch: { term: tmux, pane: "p", clock, env: {}, pollMs: 1000, holds }, enters: () => enters, looks: () => looks };
}

describe("enterWhileUnsent", () => {
  test("a paste drawn late (the screen as it was for several looks) still gets its Enter once it shows", async () => {
    const w = scripted([EMPTY, EMPTY, EMPTY, EMPTY, WAKE_LEFT, SENT]);
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(1);
    expect(w.enters()).toBe(1);
  });

  test("a paste never drawn: no Enter, and the watch ends by its deadline", async () => {
    const w = scripted([EMPTY]);
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(0);
    expect(w.looks()).toBeLessThanOrEqual(31);
  });

  test.each([
    ["back an hour", -3_600_000],
    ["forward an hour", 3_600_000],
  ])("the wall clock stepping %s during the watch: still the 30 s readiness wait, a monotonic deadline (TIME-02)", async (_, ms) => {
    const w = scripted([EMPTY]);
    const sleep = w.watch.clock.sleep;
    let stepped = false;
    w.watch.clock.sleep = async (n) => {
      await sleep(n);
      if (!stepped) w.watch.clock.step(ms);
      stepped = true;
    };
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(0);
    expect(w.looks()).toBe(30);
  });

  test("the turn started (a commander reads busy): a miss, never an Enter, however the box reads", async () => {
    const w = scripted([WAKE_LEFT], () => false);
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(0);
    expect(w.looks()).toBe(2);
  });

  test("a box that keeps the wake gets MAX_RESENDS Enters, no more", async () => {
    const w = scripted([WAKE_LEFT]);
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(MAX_RESENDS);
  });

  test("once an Enter was pressed, a screen back to how it was before is a miss (the wake was taken and cleared)", async () => {
    const w = scripted([WAKE_LEFT, EMPTY]);
    expect(await enterWhileUnsent(w.watch, EMPTY, WAKE)).toBe(1);
    expect(w.looks()).toBe(3);
  });
});

// A tmux paste for a harness that can drop its Enter (Harness.unsent; Gemini CLI drops an Enter
// within 40 ms of a paste, and one pressed as its session finishes initialising): Enter again
// while the input box still holds the prompt, never for a harness whose Enter is never lost.
import { describe, expect, test } from "bun:test";
import { pasteAndSubmit } from "../../src/backends/tmux-launch";
import { fakeClock } from "../deps";
import { memoryTmux } from "../fakes/tmux-memory";

const BOX = (line: string) => `────\n YOLO Ctrl+Y\n${line}\n workspace (/directory)\n`;
const EMPTY = BOX(" *   Type your message or @path/to/file");
const HELD = BOX(" * [Pasted Text: 9 lines]");

describe("pasteAndSubmit", () => {
  test("Gemini CLI: the prompt left in the box gets Enter again until the box is empty", async () => {
    const tmux = memoryTmux();
    const s = tmux.add("soldier", { text: HELD });
    const real = tmux.sendKeys.bind(tmux);
    // The second Enter is the one taken.
    tmux.sendKeys = async (session, keys) => {
      await real(session, keys);
      if (s.keys.length === 2) s.text = EMPTY;
    };
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(s.pasted).toEqual(["do the work"]);
    expect(s.keys).toEqual([["Enter"], ["Enter"]]);
  });

  test("Gemini CLI: a box emptied by the paste's own Enter gets no second one", async () => {
    const tmux = memoryTmux();
    const s = tmux.add("soldier", { text: EMPTY });
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(s.keys).toEqual([]);
  });

  test("a box that never empties is given up at the readiness wait", async () => {
    const tmux = memoryTmux();
    const s = tmux.add("soldier", { text: HELD });
    const clock = fakeClock();
    const t0 = clock.now();
    await pasteAndSubmit({ clock, env: {} }, tmux, "soldier", "do the work", "gemini");
    expect(clock.now() - t0).toBeGreaterThanOrEqual(30_000);
    expect(s.keys.length).toBeGreaterThan(1);
  });

  test("Claude Code: one paste, nothing more, whatever the screen shows", async () => {
    const tmux = memoryTmux();
    const s = tmux.add("soldier", { text: HELD });
    await pasteAndSubmit({ clock: fakeClock(), env: {} }, tmux, "soldier", "do the work", "claude");
    expect(s.pasted).toEqual(["do the work"]);
    expect(s.keys).toEqual([]);
  });
});

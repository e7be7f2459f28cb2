// The readiness wait both terminals use (TMX-02, HRD-06), on a scripted pane and a fake clock:
// screens as the real harnesses draw them on the real herdr 0.8.2 (Claude Code 2.1.332's dialog
// drawn only after herdr called it ready, Codex 0.171.0's trust screen after its loading composer).
import { describe, expect, test } from "bun:test";
import { type Look, type ReadyPane, trustOptionDigit, waitReady } from "../../src/backends/readiness";
import { scaled } from "../../src/time";
import { fakeClock } from "../deps";

const SHELL = "# claude --dangerously-skip-permissions\n";
const claudeDialog = (onYes: boolean) =>
  `${SHELL}\n${"─".repeat(80)}\n Accessing workspace:\n\n /tmp/camps/1/project\n\n Quick safety check: Is this a project you created or one you trust?\n\n Security guide\n\n${onYes ? "   No, exit\n ❯ Yes, I trust this folder" : " ❯ No, exit\n   Yes, I trust this folder"}\n\n Enter to confirm · Esc to cancel\n`;
const CLAUDE_READY = `${SHELL}\n╭ Claude Code\n❯ \n? for shortcuts\n`;

/** A pane showing `screens[i]` from poll `i` on (the last one stays), reacting to keys with `react`. */
function scripted(screens: string[], react: (key: string, screen: string) => string | undefined = () => undefined) {
  let poll = 0;
  let override: string | undefined;
  const keys: string[] = [];
  const pane: ReadyPane = {
    async look(): Promise<Look> {
      const screen = override ?? screens[Math.min(poll, screens.length - 1)]!;
      poll++;
      return { screen };
    },
    async press(key) {
      keys.push(key);
      const current = override ?? screens[Math.min(poll - 1, screens.length - 1)]!;
      const next = react(key, current);
      if (next !== undefined) override = next;
    },
  };
  return { pane, keys };
}

const timing = () => ({ clock: fakeClock(), env: {} });
const LIMIT = 30_000;

describe("waitReady", () => {
  test("Claude Code drawing its folder-trust dialog after herdr called it ready: Down, Enter, then ready", async () => {
    let onYes = false;
    const { pane, keys } = scripted([SHELL, SHELL, claudeDialog(false)], (key) => {
      if (key === "Down") return claudeDialog((onYes = true));
      if (key === "Enter" && onYes) return CLAUDE_READY;
      return undefined;
    });
    expect(await waitReady(pane, "claude", timing(), LIMIT)).toEqual({ kind: "ready" });
    expect(keys).toEqual(["Down", "Enter"]);
  });

  test("Codex's loading composer is not readiness: Enter on its trust screen, then its ready line", async () => {
    const loading = "  >_ OpenAI Codex (v0.171.0)\n› Ask Codex to do anything\n";
    const dialog = "  Folder access\n  Trust this folder? Codex can read, edit, and run files here.\n\n› 1. Trust and continue\n  2. Back to Agent Command Center\n";
    const ready = "  >_ OpenAI Codex (v0.171.0)\n  permissions: YOLO mode\n› Ask Codex to do anything\n";
    const { pane, keys } = scripted([loading, loading, loading, dialog], (key) => (key === "Enter" ? ready : undefined));
    expect(await waitReady(pane, "codex", timing(), LIMIT)).toEqual({ kind: "ready" });
    expect(keys).toEqual(["Enter"]);
  });

  test("a start-up screen that is not a folder-trust dialog is never answered: a timeout with that screen", async () => {
    const login = `${SHELL}Select login method:\n ❯ 1. Claude account\n   2. Anthropic Console account\n`;
    const clock = fakeClock();
    const t0 = clock.now();
    const { pane, keys } = scripted([login]);
    expect(await waitReady(pane, "claude", { clock, env: {} }, LIMIT)).toEqual({ kind: "timeout", screen: login });
    expect(keys).toEqual([]);
    // Polled every two trust polls until the whole limit passed, and no longer.
    expect(clock.now() - t0).toBe(LIMIT);
    expect(LIMIT % (2 * scaled("trustPoll", {}))).toBe(0);
  });

  test("a pane that is gone ends the wait with its last words", async () => {
    const pane: ReadyPane = { look: async () => ({ gone: "error: no API key" }), press: async () => undefined };
    expect(await waitReady(pane, "claude", timing(), LIMIT)).toEqual({ kind: "gone", last: "error: no API key" });
  });
});

test.each([
  [" ❯ 1. Yes, I trust this folder\n   2. No, exit", "1"],
  ["1) No\n2) Yes, trust", "2"],
  ["1. yes, lower case does not count\n2. No", undefined],
  ["no options here", undefined],
])("trustOptionDigit(%p) = %p", (screen, want) => expect(trustOptionDigit(screen)).toBe(want));

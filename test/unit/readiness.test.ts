// The readiness wait both terminals use (TMX-02, HRD-06), on a scripted pane and a fake clock:
// screens as the real harnesses draw them on the real herdr 0.8.2 (Claude Code 2.1.332's dialog
// drawn only after herdr called it ready, Codex 0.171.0's trust screen after its loading composer).
import { describe, expect, test } from "bun:test";
import { type Look, RESEND_POLLS, type ReadyPane, trustOptionDigit, waitReady, waitStartReport } from "../../src/backends/readiness";
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

// Gemini CLI 0.61.0 resumed: its box is drawn (its ready text) before SessionStart, then the restored
// conversation replaces the screen; a prompt sent before that vanished (docs/real-clients.md).
describe("waitStartReport", () => {
  const BOX = " *   Type your message or @path/to/file\n";
  const RESTORED = ` > write the draft file (alpha)\n✦ The draft is written.\n${BOX}`;

  test("waits for the start report, then for the restored conversation to hold still", async () => {
    const clock = fakeClock();
    const t0 = clock.now();
    const reportAt = t0 + 2_000;
    const seen: string[] = [];
    const pane: ReadyPane = {
      async look() {
        const screen = clock.now() - t0 < 3_000 ? BOX : RESTORED;
        seen.push(screen);
        return { screen };
      },
      press: async () => undefined,
    };
    await waitStartReport(pane, "gemini", () => clock.now() >= reportAt, { clock, env: {} }, LIMIT);
    // No look before the report; the bare box held still a moment is not enough: it returns once the restored screen
    // held still for RESEND_POLLS polls.
    expect(seen.length).toBe(1 + (3_000 - 2_000) / scaled("trustPoll", {}) + RESEND_POLLS);
    expect(seen.slice(-(RESEND_POLLS + 1))).toEqual(Array(RESEND_POLLS + 1).fill(RESTORED));
    expect(clock.now() - t0).toBe(3_000 + RESEND_POLLS * scaled("trustPoll", {}));
  });

  test("no report within the limit: it gives up at the limit (the prompt goes as before); a gone pane ends it at once", async () => {
    const clock = fakeClock();
    const t0 = clock.now();
    let looks = 0;
    const pane: ReadyPane = { look: async () => (looks++, { screen: BOX }), press: async () => undefined };
    await waitStartReport(pane, "gemini", () => false, { clock, env: {} }, LIMIT);
    expect({ waited: clock.now() - t0, looks }).toEqual({ waited: LIMIT, looks: 0 });

    const gone: ReadyPane = { look: async () => ({ gone: "bye" }), press: async () => undefined };
    const t1 = clock.now();
    await waitStartReport(gone, "gemini", () => true, { clock, env: {} }, LIMIT);
    expect(clock.now() - t1).toBe(0);
  });

  test("a harness without a start report is not kept waiting", async () => {
    const clock = fakeClock();
    const t0 = clock.now();
    const pane: ReadyPane = { look: async () => ({ screen: CLAUDE_READY }), press: async () => undefined };
    for (const h of ["claude", "codex", "pi", "opencode", "copilot"] as const) await waitStartReport(pane, h, () => false, { clock, env: {} }, LIMIT);
    expect(clock.now() - t0).toBe(0);
  });
});

test.each([
  [" ❯ 1. Yes, I trust this folder\n   2. No, exit", "1"],
  ["1) No\n2) Yes, trust", "2"],
  ["1. yes, lower case does not count\n2. No", undefined],
  ["no options here", undefined],
])("trustOptionDigit(%p) = %p", (screen, want) => expect(trustOptionDigit(screen)).toBe(want));

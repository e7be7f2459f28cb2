// The submitted texts of CMD-DISPATCH-05, exactly.
import { describe, expect, test } from "bun:test";
import { TRAILER, finalTurnWindow, needsDecision } from "../../src/lifecycle/evidence";
import { DECISION_BLOCK, FOLLOW_UP_BLOCK, dispatchText, followUpText, pauseBlock, reportBlock } from "../../src/soldiers/prompt-text";

const PAUSE = "/home/u/.vexillum/projects/app-1234abcd/pauses/vx-fix-it.md";
const REPORT = "/home/u/.vexillum/projects/app-1234abcd/reports/vx-fix-it-0123456789abcdef.md";

const PAUSE_TEXT = `If you have to wait for something outside this session (a long job, a rate limit, a person), declare a pause before ending your turn: write ${PAUSE} with a first line "paused: <why>" and optionally a second line "until: <when>". Delete it when you resume. A pause is trusted for 30 minutes.`;
const DECISION_TEXT = [
  "If you cannot continue without a decision from the general, end your turn with exactly one line:",
  "needs-decision: <a one-line summary of the question and any options>",
  "Use that line only when you truly need a decision; do not use it for an ordinary status update.",
].join("\n");

describe("prompt text", () => {
  test("the blocks", () => {
    expect(pauseBlock(PAUSE)).toBe(PAUSE_TEXT);
    expect(DECISION_BLOCK).toBe(DECISION_TEXT);
    expect(reportBlock(REPORT)).toBe(
      `Before you finish, write your final report as a single Markdown file at: ${REPORT}\nCreate its parent directories if needed. 'vx strike' will refuse to strike your camp without it.`,
    );
    expect(FOLLOW_UP_BLOCK).toBe('If you end up needing a decision, end your turn with one line "needs-decision: <question>"; do not use it for an ordinary status update.');
  });

  test("a mission: the prompt, the pause block, the decision block last", () => {
    expect(dispatchText({ prompt: "fix it\nplease", kind: "mission", reportPath: REPORT, pauseFile: PAUSE })).toBe(`fix it\nplease\n\n---\n${PAUSE_TEXT}\n\n---\n${DECISION_TEXT}`);
  });

  test("a scout: the report block first", () => {
    expect(dispatchText({ prompt: "survey auth", kind: "scout", reportPath: REPORT, pauseFile: PAUSE })).toBe(
      `survey auth\n\n---\nBefore you finish, write your final report as a single Markdown file at: ${REPORT}\nCreate its parent directories if needed. 'vx strike' will refuse to strike your camp without it.\n\n---\n${PAUSE_TEXT}\n\n---\n${DECISION_TEXT}`,
    );
  });

  test("a follow-up", () => {
    expect(followUpText("add tests")).toBe(
      'add tests\n\n---\nIf you end up needing a decision, end your turn with one line "needs-decision: <question>"; do not use it for an ordinary status update.',
    );
  });

  test("every text ends with the trailer, and its own echo never reads as a question", () => {
    for (const kind of ["mission", "scout"] as const) {
      const text = dispatchText({ prompt: "p", kind, reportPath: REPORT, pauseFile: PAUSE });
      expect(text).toEndWith(TRAILER);
      expect(needsDecision(finalTurnWindow(`> ${text}\n`))).toBeNull();
    }
    expect(followUpText("x")).toEndWith(TRAILER);
    expect(needsDecision(finalTurnWindow(followUpText("x")))).toBeNull();
    // The template line is skipped even when the trailer scrolled out of the pane.
    expect(needsDecision(DECISION_TEXT)).toBeNull();
  });
});

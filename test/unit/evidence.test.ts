import { describe, expect, test } from "bun:test";
import { redact } from "../../src/redact";
import { DECISION_PLACEHOLDER, type Evidence, TRAILER, backgroundWork, finalTurnWindow, needsDecision, turnInProgress } from "../../src/lifecycle/evidence";

const SPINNER: Evidence = { kind: "spinner", text: "a spinner line with a timer" };
const TOOL: Evidence = { kind: "tool", text: 'a "Running..." tool line' };
const summary = (s: string): Evidence => ({ kind: "summary", text: `"${s}"` });
const filler = (n: number) => Array.from({ length: n }, (_, i) => `output line ${i + 1}`).join("\n");

// The tail of a dispatched prompt as the pane echoes it (CMD-DISPATCH-05).
const DISPATCH_ECHO = [
  "> Add a cache layer in front of the user lookups.",
  "  ---",
  '  If you have to wait for something outside this session (a long job, a rate limit, a person), declare a pause before ending your turn: write /s/pauses/s1.md with a first line "paused: <why>" and optionally a second line "until: <when>". Delete it when you resume. A pause is trusted for 30 minutes.',
  "  ---",
  "  If you cannot continue without a decision from the general, end your turn with exactly one line:",
  `  ${"needs-decision: " + DECISION_PLACEHOLDER}`,
  `  Use that line only when you truly need a decision; ${TRAILER}`,
].join("\n");
const PROMPT_ECHO = `> Now add eviction.\n  ---\n  If you end up needing a decision, end your turn with one line "needs-decision: <question>"; ${TRAILER}`;

describe("finalTurnWindow", () => {
  const rows: { name: string; input: string; want: string }[] = [
    { name: "trailer absent: whole transcript", input: "a\nb\nc", want: "a\nb\nc" },
    { name: "after the trailer", input: `prompt ${TRAILER}\nturn`, want: "\nturn" },
    { name: "after the last trailer", input: `p1 ${TRAILER}\nturn 1\np2 ${TRAILER}\nturn 2`, want: "\nturn 2" },
    { name: "case-sensitive", input: `Do not use it for an ordinary status update.\nturn`, want: "Do not use it for an ordinary status update.\nturn" },
    { name: "trailer wrapped by a narrow pane", input: "x do not use it for an\n  ordinary status update.\nturn", want: "\nturn" },
    { name: "trailer at the very end", input: `echo ${TRAILER}`, want: "" },
    { name: "empty", input: "", want: "" },
  ];
  test.each(rows)("$name", ({ input, want }) => {
    expect(finalTurnWindow(input)).toBe(want);
  });
});

describe("turnInProgress", () => {
  const rows: { name: string; input: string; want: Evidence | null }[] = [
    { name: "SEN-12 example: Tempering with timer", input: "✻ Tempering… (12s · ↑ 1.2k tokens · esc to interrupt)", want: SPINNER },
    { name: "SEN-12 example: Worked for (no parenthesis)", input: "✻ Worked for 2m 3s", want: null },
    { name: "Worked for with a done time", input: "✻ Worked for 7s · done 18:49", want: null },
    { name: "three components", input: "* (1h 2m 3s)", want: SPINNER },
    { name: "one component", input: "* (2s)", want: SPINNER },
    { name: "space inside a component is not a timer", input: "* (12 s)", want: null },
    { name: "no spaces between components", input: "* (1h2m3s)", want: SPINNER },
    { name: "spaces after the parenthesis", input: "* (  12s)", want: SPINNER },
    { name: "hours then seconds", input: "✶ Baking… (1h 5s · esc to interrupt)", want: SPINNER },
    { name: "minutes then middle dot", input: "✳ Pondering… (2m· esc)", want: SPINNER },
    { name: "seconds then bullet", input: "✽ Pondering… (9s•)", want: SPINNER },
    { name: "Moonwalking with tokens", input: "* Moonwalking… (4m 18s · ↓ 2.0k tokens · thinking)", want: SPINNER },
    { name: "middle dot glyph", input: "· Thinking… (3s · esc to interrupt)", want: SPINNER },
    { name: "✢ glyph, indented", input: "   ✢ Thinking… (3s)", want: SPINNER },
    { name: "• glyph (Codex)", input: "• Working (12s • esc to interrupt)", want: SPINNER },
    { name: "◐ glyph", input: "◐ Loading (5s)", want: SPINNER },
    { name: "◓ glyph", input: "◓ a (1s)", want: SPINNER },
    { name: "◑ glyph", input: "◑ b (1m)", want: SPINNER },
    { name: "◒ glyph", input: "◒ c (1h)", want: SPINNER },
    { name: "Braille glyph", input: "⠋ Working (5s • esc to interrupt)", want: SPINNER },
    { name: "Braille end of range", input: "⣿ Working (5m)", want: SPINNER },
    { name: "time not right after the parenthesis", input: "✻ Thinking… (thought for 3s)", want: null },
    { name: "no time at all", input: "✻ Thinking… (esc to interrupt)", want: null },
    { name: "unit spelled out", input: "* (5 sec)", want: null },
    { name: "unterminated timer", input: "* (12s", want: null },
    { name: "timer glued to letters", input: "* (12sx)", want: null },
    { name: "no glyph first", input: "Tempering… (12s · esc to interrupt)", want: null },
    { name: "glyph not first", input: "a ✻ Tempering (12s)", want: null },
    { name: "tool line under Bash", input: "⏺ Bash(npm test)\n  ⎿  Running…", want: TOOL },
    { name: "tool line with ASCII dots", input: "  ⎿  Running...", want: TOOL },
    { name: "tool line with tree glyphs", input: "  │ └ ├─ Running… (esc to background)", want: TOOL },
    { name: "tool line after ●", input: "● Running... tests", want: TOOL },
    { name: "bare Running…", input: "Running… migrations", want: TOOL },
    { name: "Ran is not Running", input: "  ⎿  Ran 3 tests", want: null },
    { name: "lower-case running", input: "  ⎿  running…", want: null },
    { name: "two dots", input: "  ⎿  Running..", want: null },
    { name: "Running in the middle", input: "The Running… thing", want: null },
    { name: "spinner below a tool line wins", input: "  ⎿  Running…\n✻ Tempering… (12s · esc to interrupt)", want: SPINNER },
    { name: "tool below a spinner wins", input: "✻ Tempering… (12s)\n  ⎿  Running…", want: TOOL },
    { name: "evidence as the 20th non-blank line", input: `✻ Tempering… (12s)\n${filler(19)}`, want: SPINNER },
    { name: "evidence as the 21st non-blank line", input: `✻ Tempering… (12s)\n${filler(20)}`, want: null },
    { name: "blank lines do not count", input: `  ⎿  Running…\n${filler(19).replace(/\n/g, "\n\n  \n")}\n\n\n`, want: TOOL },
    { name: "empty window", input: "", want: null },
  ];
  test.each(rows)("$name", ({ input, want }) => {
    expect(turnInProgress(input)).toEqual(want);
  });

  test("evidence before the trailer (the previous turn) does not count", () => {
    const transcript = `✻ Tempering… (12s · esc to interrupt)\n${PROMPT_ECHO}\n⏺ Done.\n✻ Worked for 9s`;
    expect(turnInProgress(finalTurnWindow(transcript))).toBeNull();
    expect(turnInProgress(transcript)).toEqual(SPINNER);
  });
});

describe("backgroundWork", () => {
  const rows: { name: string; input: string; want: Evidence | null }[] = [
    { name: "SEN-12 example: 1 shell", input: "1 shell still running", want: summary("1 shell still running") },
    { name: "SEN-12 example: 2 background tasks", input: "2 background tasks still running", want: summary("2 background tasks still running") },
    { name: "SEN-12 example: 1 MCP task", input: "1 MCP task still running", want: summary("1 MCP task still running") },
    { name: "inside the status bar", input: "  ⏵⏵ auto mode on · 1 shell still running · ↓ to manage", want: summary("1 shell still running") },
    { name: "case-insensitive, case kept", input: "3 Background Tasks Still Running", want: summary("3 Background Tasks Still Running") },
    { name: "multi-digit count", input: "10 shells still running", want: summary("10 shells still running") },
    { name: "three words", input: "2 of them are still running", want: summary("2 of them are still running") },
    { name: "a count before it is not a word", input: "3 done, 1 shell still running", want: summary("1 shell still running") },
    { name: "SEN-12: zero is not evidence", input: "0 shells still running", want: null },
    { name: "zero background tasks", input: "0 background tasks still running", want: null },
    { name: "zero after other counts", input: "3 done, 0 shells still running", want: null },
    { name: "no count", input: "shells still running", want: null },
    { name: "no word", input: "1 still running", want: null },
    { name: "four words", input: "1 a b c d still running", want: null },
    { name: "count glued to a letter", input: "v2 shells still running", want: null },
    { name: "still-running summary as the 21st non-blank line", input: `1 shell still running\n${filler(20)}`, want: null },
    { name: "empty window", input: "", want: null },
  ];
  test.each(rows)("$name", ({ input, want }) => {
    expect(backgroundWork(input)).toEqual(want);
  });
});

describe("needsDecision", () => {
  type Row = { name: string; input: string; want: string | null; answered?: { question: string; answered: boolean } };
  const Q = "Use Redis or an in-process LRU for the cache?";
  const rows: Row[] = [
    { name: "plain line", input: `needs-decision: ${Q}`, want: Q },
    { name: "after ⏺", input: `⏺ needs-decision: ${Q}`, want: Q },
    { name: "after ● with indent", input: `   ● needs-decision: ${Q}`, want: Q },
    { name: "after •", input: `• needs-decision: ${Q}`, want: Q },
    { name: "after -", input: `- needs-decision: ${Q}`, want: Q },
    { name: "after *", input: `* needs-decision: ${Q}`, want: Q },
    { name: "after >", input: `> needs-decision: ${Q}`, want: Q },
    { name: "after │", input: `│ needs-decision: ${Q}`, want: Q },
    { name: "bold label", input: `**needs-decision:** ${Q}`, want: Q },
    { name: "bold line", input: `⏺ **needs-decision: ${Q}**`, want: Q },
    { name: "code span", input: `\`needs-decision: ${Q}\``, want: Q },
    { name: "underscore emphasis", input: `__needs-decision:__ ${Q}`, want: Q },
    { name: "upper case", input: `NEEDS-DECISION: ${Q}`, want: Q },
    { name: "no space after the colon", input: `Needs-Decision:${Q}  `, want: Q },
    { name: "backtick inside the question kept", input: "needs-decision: merge `main` or `dev`?", want: "merge `main` or `dev`?" },
    { name: "not at line start", input: `I will write needs-decision: ${Q} later`, want: null },
    { name: "no hyphen", input: `needs decision: ${Q}`, want: null },
    { name: "skip: empty", input: "needs-decision:", want: null },
    { name: "skip: blank", input: "needs-decision:    ", want: null },
    { name: "skip: emphasis only", input: "**needs-decision:** **", want: null },
    { name: "skip: template placeholder", input: `needs-decision: ${DECISION_PLACEHOLDER}`, want: null },
    { name: "skip: one angle-bracket group", input: "needs-decision: <question>", want: null },
    { name: "skip: other angle-bracket group", input: "needs-decision: <pick one of A or B>", want: null },
    { name: "two angle-bracket groups survive", input: "needs-decision: <a> or <b>", want: "<a> or <b>" },
    ...["none", "None.", "n/a", "N/A.", "na", "NA", "nothing", "Nothing.", "no", "No.", "nil", "null", "NULL.", "-", "—", "-."].map(
      (v): Row => ({ name: `skip: nothing-value ${JSON.stringify(v)}`, input: `needs-decision: ${v}`, want: null }),
    ),
    { name: "bold nothing-value", input: "**needs-decision: none**", want: null },
    { name: "skip: nothing-value with an ellipsis of dots", input: "needs-decision: none...", want: null },
    { name: "a dot inside is not ignored", input: "needs-decision: n.a", want: "n.a" },
    { name: "not a nothing-value", input: "needs-decision: not sure which", want: "not sure which" },
    { name: "skip: no letter or digit", input: "needs-decision: ???", want: null },
    { name: "skip: only an ellipsis", input: "needs-decision: …", want: null },
    { name: "a digit is enough", input: "needs-decision: 1 or 2?", want: "1 or 2?" },
    { name: "skip: answered question", input: `needs-decision: ${Q}`, answered: { question: Q, answered: true }, want: null },
    {
      name: "skip: answered question after whitespace collapsing",
      input: `needs-decision:   Use Redis   or an in-process LRU\tfor the cache?`,
      answered: { question: ` ${Q} `, answered: true },
      want: null,
    },
    { name: "unanswered current question still counts", input: `needs-decision: ${Q}`, answered: { question: Q, answered: false }, want: Q },
    { name: "a different question counts", input: "needs-decision: Ship it?", answered: { question: Q, answered: true }, want: "Ship it?" },
    {
      name: "answered question stored redacted",
      input: "needs-decision: Keep sk-abcdefghijklmnopqrst in the config?",
      answered: { question: redact("Keep sk-abcdefghijklmnopqrst in the config?"), answered: true },
      want: null,
    },
    { name: "last candidate wins", input: "needs-decision: first?\ntext\nneeds-decision: second?", want: "second?" },
    { name: "skipped last falls back to an earlier one", input: "needs-decision: first?\nneeds-decision: none", want: "first?" },
    {
      name: "answered last falls back to an earlier one",
      input: `needs-decision: Ship it?\nneeds-decision: ${Q}`,
      answered: { question: Q, answered: true },
      want: "Ship it?",
    },
    { name: "no candidate", input: "⏺ All done, tests pass.", want: null },
  ];
  test.each(rows)("$name", ({ input, answered, want }) => {
    expect(needsDecision(input, answered)).toBe(want);
  });

  test("echoed dispatch prompt, then the soldier's real line", () => {
    const transcript = [DISPATCH_ECHO, "", "⏺ I read the lookup code. Both options work; they differ in ops cost.", "", `⏺ needs-decision: ${Q}`, "", "✻ Worked for 41s"].join("\n");
    const w = finalTurnWindow(transcript);
    expect(w).not.toContain(DECISION_PLACEHOLDER);
    expect(needsDecision(w)).toBe(Q);
    expect(turnInProgress(w)).toBeNull();
    expect(backgroundWork(w)).toBeNull();
  });

  test("echoed dispatch prompt with no real line is no decision", () => {
    const transcript = `${DISPATCH_ECHO}\n\n⏺ Done: cache added, tests pass.\n\n✻ Worked for 2m 3s`;
    expect(needsDecision(finalTurnWindow(transcript))).toBeNull();
  });

  test("trailer scrolled out: the template line is skipped, the real line wins", () => {
    const transcript = `  needs-decision: ${DECISION_PLACEHOLDER}\n  Use that line only when you truly need a decision;\n⏺ needs-decision: ${Q}`;
    expect(finalTurnWindow(transcript)).toBe(transcript);
    expect(needsDecision(finalTurnWindow(transcript))).toBe(Q);
  });

  test("a wrapped echo still ends at the wrapped trailer", () => {
    const transcript = [
      "  needs-decision: <a one-line summary of the question and any",
      "  options>",
      "  Use that line only when you truly need a decision; do not use it for an",
      "  ordinary status update.",
      "⏺ Done.",
    ].join("\n");
    expect(needsDecision(finalTurnWindow(transcript))).toBeNull();
  });

  test("an echo framed by a right border (Copilot CLI in a 95-column herdr pane) is no decision", () => {
    // As the real herdr 0.8.2 showed it: the trailer wrapped at the border, and the template line
    // ending in the frame's `┃`.
    const transcript = [
      "   If you cannot continue without a decision from the general, end your turn with            ┃",
      "   exactly one line:                                                                         ┃",
      `   needs-decision: ${DECISION_PLACEHOLDER}                      ┃`,
      "   Use that line only when you truly need a decision; do not use it for an ordinary          ┃",
      "   status update.                                                                            ┃",
      "                                                                                             ┃",
      " ● Wrote the work file and committed it.                                                     ┃",
    ].join("\n");
    expect(finalTurnWindow(transcript)).not.toContain(DECISION_PLACEHOLDER);
    expect(needsDecision(finalTurnWindow(transcript))).toBeNull();
    // Nor the template line alone, when the trailer scrolled out.
    expect(needsDecision(`   needs-decision: ${DECISION_PLACEHOLDER}   ┃`)).toBeNull();
    // A real question in such a frame loses the border.
    expect(needsDecision(` ● needs-decision: ${Q}          ┃`)).toBe(Q);
  });

  test("a question from an earlier turn is outside the window", () => {
    const transcript = `${DISPATCH_ECHO}\n⏺ needs-decision: ${Q}\n${PROMPT_ECHO}\n⏺ Using Redis. Done.`;
    expect(needsDecision(finalTurnWindow(transcript))).toBeNull();
  });

  test("the vx prompt suffix line itself is not a candidate", () => {
    expect(needsDecision(PROMPT_ECHO)).toBeNull();
  });
});

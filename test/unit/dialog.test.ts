import { describe, expect, test } from "bun:test";
import { type ParsedQuestion, type ResolvedAnswer, parseModal, parseProse, resolveAnswer } from "../../src/decisions/dialog";

const RULE = "─".repeat(72);
const FOOTER = "Enter to select · ↑/↓ to navigate · Esc to cancel";

// Claude Code's AskUserQuestion dialog as `herdr agent read --source visible` shows it.
const CLASSIC = [
  "⏺ I need to pick the storage backend before going further.",
  "",
  RULE,
  " ☐ Database",
  "",
  "Which database should the cache layer use?",
  "",
  "❯ 1. Postgres",
  "     Reliable, and already in the stack",
  "  2. SQLite",
  "     Embedded, zero ops",
  "  3. Type something.",
  RULE,
  "  4. Chat about this",
  "",
  FOOTER,
].join("\n");
const CLASSIC_WANT: ParsedQuestion = {
  question: "Which database should the cache layer use?",
  options: ["Postgres", "SQLite", "Type something.", "Chat about this"],
};

describe("parseModal", () => {
  const rows: { name: string; input: string; want: ParsedQuestion | null }[] = [
    { name: "classic dialog with descriptions and separator", input: CLASSIC, want: CLASSIC_WANT },
    {
      name: "compact dialog without blank lines",
      input: [
        "☐ Accent",
        "Which trace accent should be recorded in accent.json?",
        "❯ 1. Blue",
        '     Record the accent as "blue".',
        "  2. Amber",
        '     Record the accent as "amber".',
        "  3. Type something.",
        "  4. Chat about this",
        FOOTER,
        "",
      ].join("\n"),
      want: {
        question: "Which trace accent should be recorded in accent.json?",
        options: ["Blue", "Amber", "Type something.", "Chat about this"],
      },
    },
    {
      name: "tab bar header and the Tab/Arrow keys footer",
      input: [
        "←  ☐ Color  ☐ Size  ✔ Submit  →",
        "",
        "Which color should the banner use?",
        "",
        "❯ 1. Red",
        "     Warm and loud",
        "  2. Green",
        "     Calm, and it matches the logo we",
        "     already ship",
        "  3. Blue",
        "  4. Type something.",
        "",
        "  5. Chat about this",
        "",
        "Enter to select · Tab/Arrow keys to navigate · Esc to cancel",
      ].join("\n"),
      want: {
        question: "Which color should the banner use?",
        options: ["Red", "Green", "Blue", "Type something.", "Chat about this"],
      },
    },
    {
      name: "multi-select checkboxes",
      input: [
        RULE,
        "←  ☐ Essential  ☐ Workflow  ✔ Submit  →",
        "",
        "Select essential components to install:",
        "",
        "❯ 1. [ ] notifications",
        "     Terminal bell for task completion",
        "  2. [✔] journaling",
        "  3. [ ] Type something",
        "     Next",
        RULE,
        "  4. Chat about this",
        "",
        "Enter to select · Tab/Arrow keys to navigate · Esc to cancel",
      ].join("\n"),
      want: {
        question: "Select essential components to install:",
        options: ["notifications", "journaling", "Type something", "Chat about this"],
      },
    },
    {
      name: "wrapped question and a numbered description",
      input: [
        " ☐ Plan",
        "",
        "The migration can run online or in a maintenance window; which one",
        "should I prepare?",
        "",
        "❯ 1. Online",
        "     2. steps: backfill, then swap",
        "  2. Maintenance window",
        "  3. Type something.",
        "  4. Chat about this",
        "",
        FOOTER,
      ].join("\n"),
      want: {
        question: "The migration can run online or in a maintenance window; which one should I prepare?",
        options: ["Online", "Maintenance window", "Type something.", "Chat about this"],
      },
    },
    {
      name: "options with a preview panel on the right",
      input: [
        " ☐ Rung definition",
        "",
        "Fixed or adaptive caps?",
        "",
        " 1. Per-item adaptive             ┌────────┐",
        "   (two-pass)                     │ rung   │",
        " 2. Fixed absolute ladder         └────────┘",
        " 3. Type something.",
        " 4. Chat about this",
        "",
        FOOTER,
      ].join("\n"),
      want: {
        question: "Fixed or adaptive caps?",
        options: ["Per-item adaptive", "Fixed absolute ladder", "Type something.", "Chat about this"],
      },
    },
    {
      name: "an answered dialog in scrollback: the last one counts",
      input: [" ☐ Old", "Old question?", "❯ 1. Yes", "  2. No", FOOTER, "⏺ User answered Claude's questions:", "  ⎿  · Old question? → Yes", "", CLASSIC].join("\n"),
      want: CLASSIC_WANT,
    },
    { name: "no footer", input: CLASSIC.replace(FOOTER, ""), want: null },
    { name: "no header", input: CLASSIC.replace(" ☐ Database", ""), want: null },
    {
      name: "no header: permission form",
      input: ["Do you want to proceed?", "❯ 1. Yes", "  2. No", "", FOOTER].join("\n"),
      want: null,
    },
    { name: "no options", input: [" ☐ Database", "", "Which database?", "", FOOTER].join("\n"), want: null },
    { name: "no question", input: [" ☐ Database", "❯ 1. Postgres", "  2. SQLite", FOOTER].join("\n"), want: null },
    { name: "header only after the footer", input: [FOOTER, " ☐ Database", "Which?", "❯ 1. A"].join("\n"), want: null },
    { name: "empty", input: "", want: null },
  ];
  test.each(rows)("$name", ({ input, want }) => {
    expect(parseModal(input)).toEqual(want);
  });
});

describe("parseProse", () => {
  const rows: { name: string; input: string; want: ParsedQuestion }[] = [
    {
      name: "dash options in the same paragraph",
      input: "Which DB?\n- Postgres\n- SQLite",
      want: { question: "Which DB?", options: ["Postgres", "SQLite"] },
    },
    {
      name: "numbered options in their own paragraph",
      input: "Earlier text.\n\n⏺ Which DB should I use?\n\n1. Postgres\n2) SQLite\n3: Redis\n",
      want: { question: "Which DB should I use?", options: ["Postgres", "SQLite", "Redis"] },
    },
    {
      name: "star and bullet options",
      input: "Pick one:\n  * Alpha\n  • Beta",
      want: { question: "Pick one:", options: ["Alpha", "Beta"] },
    },
    {
      name: "no options",
      input: "Some earlier text.\n\nShould I continue with the refactor?\n\n",
      want: { question: "Should I continue with the refactor?", options: [] },
    },
    {
      name: "question lines around the options",
      input: "Which one?\n- A\n- B\nLet me know.",
      want: { question: "Which one? Let me know.", options: ["A", "B"] },
    },
    {
      name: "a marker without whitespace is not an option",
      input: "Pass -v or 1.5 here?\n-v\n1.5",
      want: { question: "Pass -v or 1.5 here? -v 1.5", options: [] },
    },
    {
      name: "permission prompt with key hints",
      input: [
        " Bash command",
        "",
        "   rm -rf build",
        "   Clean the build directory",
        "",
        " Do you want to proceed?",
        " ❯ 1. Yes",
        "   2. Yes, and don't ask again for rm commands in this folder",
        "   3. No, and tell Claude what to do differently (esc)",
        "",
        "Esc to cancel · Tab to amend · ctrl+e to explain",
      ].join("\n"),
      want: {
        question: "Do you want to proceed?",
        options: ["Yes", "Yes, and don't ask again for rm commands in this folder", "No, and tell Claude what to do differently (esc)"],
      },
    },
    {
      name: "dialog without a header falls back cleanly",
      input: ["● Which colour do you prefer?", "", "  ❯ 1. Red", "    2. Blue", "    3. Type something.", "", FOOTER].join("\n"),
      want: { question: "Which colour do you prefer?", options: ["Red", "Blue", "Type something."] },
    },
    {
      name: "options split by a separator rule",
      input: ["Which?", "  1. A", "  2. Type something.", RULE, "  3. Chat about this", "", RULE].join("\n"),
      want: { question: "Which?", options: ["A", "Type something.", "Chat about this"] },
    },
    { name: "only options", input: "- A\n- B", want: { question: "", options: ["A", "B"] } },
    { name: "CRLF", input: "Which?\r\n- A\r\n- B\r\n", want: { question: "Which?", options: ["A", "B"] } },
    { name: "empty", input: "", want: { question: "", options: [] } },
  ];
  test.each(rows)("$name", ({ input, want }) => {
    expect(parseProse(input)).toEqual(want);
  });
});

describe("resolveAnswer", () => {
  const OPTS = ["Postgres", "SQLite", "Type something.", "Chat about this"];
  const rows: { name: string; options: string[]; input: string; want: ResolvedAnswer }[] = [
    { name: "exact text", options: OPTS, input: "Postgres", want: { kind: "option", number: 1 } },
    { name: "text with spaces around", options: OPTS, input: "  SQLite ", want: { kind: "option", number: 2 } },
    { name: "case-insensitive text", options: OPTS, input: "sqlite", want: { kind: "option", number: 2 } },
    { name: "number", options: OPTS, input: "2", want: { kind: "option", number: 2 } },
    { name: "number of the chat option", options: OPTS, input: "4", want: { kind: "option", number: 4 } },
    { name: "text of the chat option", options: OPTS, input: "Chat about this", want: { kind: "option", number: 4 } },
    { name: "number of Type something.", options: OPTS, input: "3", want: { kind: "text" } },
    { name: "text of Type something.", options: OPTS, input: "type something.", want: { kind: "text" } },
    { name: "Type something without the period", options: ["A", "Type something"], input: "2", want: { kind: "text" } },
    { name: "number out of range", options: OPTS, input: "5", want: { kind: "text" } },
    { name: "zero", options: OPTS, input: "0", want: { kind: "text" } },
    { name: "number with a dot", options: OPTS, input: "1.", want: { kind: "text" } },
    { name: "no match", options: OPTS, input: "Use Redis instead", want: { kind: "text" } },
    { name: "empty answer", options: OPTS, input: "  ", want: { kind: "text" } },
    { name: "no options", options: [], input: "1", want: { kind: "text" } },
    { name: "exact text beats number", options: ["10", "1"], input: "1", want: { kind: "option", number: 2 } },
    { name: "number when no text matches", options: ["10", "20"], input: "2", want: { kind: "option", number: 2 } },
    { name: "exact case beats case-insensitive", options: ["yes", "Yes"], input: "Yes", want: { kind: "option", number: 2 } },
  ];
  test.each(rows)("$name", ({ options, input, want }) => {
    expect(resolveAnswer(options, input)).toEqual(want);
  });

  test("a parsed modal resolves end to end", () => {
    const modal = parseModal(CLASSIC);
    expect(modal).not.toBeNull();
    expect(resolveAnswer(modal!.options, "SQLite")).toEqual({ kind: "option", number: 2 });
  });
});

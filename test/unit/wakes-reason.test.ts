import { describe, expect, test } from "bun:test";
import type { ForumWake, SoldierWake } from "../../src/state/schemas";
import { drainLine, reasonText } from "../../src/wakes/reason";

const S1: SoldierWake = {
  task_id: "bbbbbbbbbbbbbbbb",
  kind: "scout",
  old_status: "running",
  new_status: "done",
  detected_at: "2026-11-30T10:00:09.000Z",
  report_path: "/home/u/.vexillum/projects/app-1234abcd/reports/bbbbbbbbbbbbbbbb.md",
  origin: "/home/u/src/other",
  note: "[vexillum] settled done",
};
const S2: SoldierWake = {
  task_id: "aaaaaaaaaaaaaaaa",
  kind: "mission",
  old_status: "running",
  new_status: "blocked",
  detected_at: "2026-11-30T10:00:01.000Z",
};
const F1: ForumWake = { session: "s1", file: "docs/a.md", count: 1, ended: false, detected_at: "2026-11-30T10:00:00.000Z" };
const F2: ForumWake = { session: "s2", file: "b\r\nc.md", count: 3, ended: true, detected_at: "2026-11-30T10:00:05.000Z" };

const SOLDIER_HEAD = "A vexillum soldier's status changed:";
const SOLDIER_FOOT = "Check on it (and report to the general, or land/strike as appropriate) before ending your turn.";
const FORUM_HEAD = "Forum feedback is waiting for you:";
const FORUM_FOOT = "Read it, act on it, and acknowledge it with vx forum inbox --ack <uid> before ending your turn.";

describe("reason text (WAK-11)", () => {
  test("one soldier wake", () => {
    expect(reasonText([S2], [])).toBe(`${SOLDIER_HEAD}\n- mission aaaaaaaaaaaaaaaa: running -> blocked\n${SOLDIER_FOOT}`);
  });

  test("two soldier wakes, oldest first, with project, report and note lines in that order", () => {
    expect(reasonText([S1, S2], [])).toBe(
      [
        SOLDIER_HEAD,
        "- mission aaaaaaaaaaaaaaaa: running -> blocked",
        "- scout bbbbbbbbbbbbbbbb: running -> done",
        "  project: /home/u/src/other",
        "  report: /home/u/.vexillum/projects/app-1234abcd/reports/bbbbbbbbbbbbbbbb.md",
        "  note: [vexillum] settled done",
        SOLDIER_FOOT,
      ].join("\n"),
    );
  });

  test("forum section: singular, plural, CR/LF in file names become spaces", () => {
    expect(reasonText([], [F2, F1])).toBe(
      [FORUM_HEAD, "forum session docs/a.md: 1 new message (ended: false). Run vx forum inbox.", "forum session b  c.md: 3 new messages (ended: true). Run vx forum inbox.", FORUM_FOOT].join("\n"),
    );
  });

  test("both sections: soldier first, one blank line between", () => {
    expect(reasonText([S2], [F1])).toBe(
      [SOLDIER_HEAD, "- mission aaaaaaaaaaaaaaaa: running -> blocked", SOLDIER_FOOT, "", FORUM_HEAD, "forum session docs/a.md: 1 new message (ended: false). Run vx forum inbox.", FORUM_FOOT].join(
        "\n",
      ),
    );
  });

  test("nothing current: empty text", () => {
    expect(reasonText([], [])).toBe("");
  });
});

describe("drain line (AWT-02)", () => {
  test.each([
    ["plain", "hi", '{"decision":"block","reason":"hi"}'],
    ["quotes and backslashes", 'say "x" \\ y', '{"decision":"block","reason":"say \\"x\\" \\\\ y"}'],
    ["newlines and tabs", "a\nb\r\tc", '{"decision":"block","reason":"a\\nb\\r\\tc"}'],
    ["control characters", "\u0001", '{"decision":"block","reason":"\\u0001"}'],
    ["unicode stays readable", "café → ✓ 🚩", '{"decision":"block","reason":"café → ✓ 🚩"}'],
  ])("%s", (_name, text, want) => {
    const line = drainLine(text);
    expect(line).toBe(want);
    expect(JSON.parse(line)).toEqual({ decision: "block", reason: text });
    expect(line.includes("\n")).toBe(false);
  });

  test("a whole reason round-trips on one line", () => {
    const text = reasonText([S1, S2], [F1, F2]);
    const line = drainLine(text);
    expect(line.split("\n")).toHaveLength(1);
    expect(Object.keys(JSON.parse(line))).toEqual(["decision", "reason"]);
    expect(JSON.parse(line).reason).toBe(text);
  });
});

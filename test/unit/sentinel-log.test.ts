// The sentinel log (SEN-21/25): vx's own words as they are, text from panes and other programs redacted.
import { describe, expect, test } from "bun:test";
import { HerdrError } from "../../src/backends/herdr/types";
import { StateError } from "../../src/errors";
import { SECRET, SENSITIVE_LINE } from "../../src/redact";
import { createLog, errorText, foreign } from "../../src/sentinel/log";
import { fakeClock } from "../deps";

function capture() {
  const lines: string[] = [];
  return { lines, log: createLog({ write: (t: string) => (lines.push(t), true) }, fakeClock(Date.parse("2026-12-01T10:00:00Z"))) };
}

describe("sentinel log", () => {
  test("what vx writes is kept whole, even with words the redactor drops lines for", () => {
    const { lines, log } = capture();
    // A project named like this once turned every line about it into "[redacted sensitive line]".
    log("sentinel: mission 0123456789abcdef (api-key-rotator-1a2b3c4d): running -> done");
    const corrupt = new StateError("/s/projects/p/tasks/0123456789abcdef.json", 'Invalid key: Expected never but received "token"');
    log(`sentinel: skipping ${errorText(corrupt)}`);
    expect(lines).toEqual([
      "2026-12-01T10:00:00.000Z sentinel: mission 0123456789abcdef (api-key-rotator-1a2b3c4d): running -> done\n",
      `2026-12-01T10:00:00.000Z sentinel: skipping ${corrupt.message}\n`,
    ]);
  });

  test("a terminal backend's error, another program's output and pane text are redacted", () => {
    const token = `ghp_${"a1B2c3D4".repeat(4)}`;
    const herdr = new HerdrError("agent_read_failed", `agent read failed near: export GITHUB_TOKEN=${token}`, ["herdr"]);
    // Each is first shown to be the line it should be, so that the token's absence means something.
    const fromHerdr = errorText(herdr);
    expect(fromHerdr).toBe(`agent read failed near: export GITHUB_TOKEN=${SECRET}`);
    expect(fromHerdr).not.toContain(token);
    // A credential header drops its whole line (RED-02).
    const fromCodex = errorText(new Error(`codex: Authorization: Bearer ${token}`));
    expect(fromCodex).toBe(SENSITIVE_LINE);
    expect(fromCodex).not.toContain(token);
    expect(foreign(`pane says ${token}`)).toBe("pane says [redacted-secret]");
  });
});

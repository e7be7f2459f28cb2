/**
 * ENV-08: every exit code vx ends with is named in src/exit-codes.ts. This scans src/ for the
 * shapes a bare exit code takes (a returned number, a SilentExit/VxError with a number, an `exit:`
 * field, a wake script comparing await's code with a number) so a new one cannot slip in unnamed.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EXIT } from "../../src/exit-codes";

const SRC = join(import.meta.dir, "../../src");

const BARE = [
  /\breturn\s+\d+;(?!;)/,
  /\bSilentExit\(\s*\d/,
  /\bnew \w*Error\(.*,\s*\d+\s*\);?\s*$/,
  /\bexit:\s*\d/,
  /\bprocess\.exit(?:Code\s*=\s*|\(\s*)\d/,
  /\bcode\s*[!=]==?\s*(?:2|64|124|126|127)\b/,
];

/**
 * Numbers that match a shape above but are not exit codes, by file and trimmed line. Each says
 * what it is; an entry that no longer matches anything fails the test, so the list cannot rot.
 */
const NOT_EXIT_CODES: Record<string, string[]> = {
  // A count of wake files; an index into argv; a count of unread forum messages.
  "doctor/sentinel.ts": ["return 0;"],
  "procs.ts": ['if (baseName(first) === "vx") return 1;'],
  "wakes/currency.ts": ["if (!isSafeBaseName(wake.session)) return 0;"],
  // Shell text of the generated bash completion.
  "completion/bash.ts": ["lines.push(`      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '${flagWords(c.flags)}' -- \"$cur\")); return 0; fi`);"],
  // doctor's probe reads a child's exit (127 is the shell's "not found"), not vx's own.
  "doctor/probe.ts": ["if (!stopped && (stderr.includes(NOT_FOUND) || code === 127)) {"],
  // Left for the harness/terminal registries to move (reg owns these files while they move):
  // CMD-DISPATCH-04's report returns EXIT.error / EXIT.ok after that move.
  "soldiers/launch.ts": ["return 1;", "return 0;"],
  // The herdr client's own reading of the Exec seam's timeout (EXEC_TIMED_OUT after the move).
  "backends/herdr/client.ts": ["if (res.code === 124) {", "if (res.code === 1 || res.code === 2) {"],
};

function isComment(line: string): boolean {
  const t = line.trim();
  return t.startsWith("//") || t.startsWith("*") || t.startsWith("/*");
}

async function bareExitCodes(): Promise<{ hits: string[]; unused: string[] }> {
  const hits: string[] = [];
  const used = new Set<string>();
  for await (const rel of new Bun.Glob("**/*.ts").scan(SRC)) {
    if (rel === "exit-codes.ts" || rel.startsWith("redact/")) continue;
    const lines = (await Bun.file(join(SRC, rel)).text()).split("\n");
    lines.forEach((line, i) => {
      if (isComment(line) || !BARE.some((re) => re.test(line))) return;
      const t = line.trim();
      if (NOT_EXIT_CODES[rel]?.includes(t)) used.add(`${rel}: ${t}`);
      else hits.push(`src/${rel}:${i + 1}: ${t}`);
    });
  }
  const unused = Object.entries(NOT_EXIT_CODES)
    .flatMap(([rel, ts]) => ts.map((t) => `${rel}: ${t}`))
    .filter((k) => !used.has(k));
  return { hits, unused };
}

describe("exit codes (ENV-08)", () => {
  test("no src/ file but exit-codes.ts returns or throws a bare numeric exit code", async () => {
    const { hits, unused } = await bareExitCodes();
    expect(hits).toEqual([]);
    expect(unused).toEqual([]);
  });

  test("a delivered wake and a task that ended badly have their own names (both 2 by contract)", () => {
    expect(EXIT.wakeDelivered).toBe(2);
    expect(EXIT.taskEndedBadly).toBe(2);
    expect(Object.keys(EXIT)).not.toContain("wake");
  });
});

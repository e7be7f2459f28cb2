// The tmux soldier's launcher (issue 15): it takes only its own env file, always removes it, and
// says in one line why it could not start the harness.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SOLDIER_ENV_FILE, soldierExec, soldierExecArgv } from "../../src/backends/soldier-exec";

function run(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = soldierExec(args, env, (l) => lines.push(l));
  return { code, stderr: lines.join("") };
}

describe("soldier-exec", () => {
  test("argv: vx's own argv, the env file, then the harness's", () => {
    expect(soldierExecArgv(["/bin/vx"], "/s/hooks/t/soldier-env.json", ["claude", "--x"])).toEqual(["/bin/vx", "__soldier-exec", "/s/hooks/t/soldier-env.json", "--", "claude", "--x"]);
  });

  test("refusals: another file name, no separator, no harness", () => {
    for (const args of [
      ["/tmp/other.json", "--", "claude"],
      [`/tmp/${SOLDIER_ENV_FILE}`, "claude"],
      [`/tmp/${SOLDIER_ENV_FILE}`, "--"],
    ]) {
      expect(run(args)).toMatchObject({ code: 64, stderr: expect.stringContaining("is run by vx in a soldier's pane") });
    }
  });

  test("an unreadable or malformed file, or a harness not on PATH: one line, and the file is removed", () => {
    const dir = mkdtempSync(join(tmpdir(), "vx-sx-"));
    try {
      const file = join(dir, SOLDIER_ENV_FILE);
      expect(run([file, "--", "claude"])).toMatchObject({ code: 1, stderr: expect.stringContaining(`could not read the soldier's environment from ${file}`) });
      writeFileSync(file, "[1]", { mode: 0o600 });
      expect(run([file, "--", "claude"])).toMatchObject({ code: 1, stderr: expect.stringContaining("not a JSON object") });
      expect(existsSync(file)).toBe(false);
      writeFileSync(file, JSON.stringify({ PATH: dir, SECRET: "s" }), { mode: 0o600 });
      expect(run([file, "--", "no-such-harness"], { PATH: "/usr/bin:/bin" })).toEqual({ code: 127, stderr: "vx: no-such-harness not found in PATH\n" });
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

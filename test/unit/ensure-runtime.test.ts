// The sentinel a command starts runs with its runtime settings (SENTINEL_RUNTIME_ENV), and only it.
import { expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SENTINEL_RUNTIME_ENV, ensureSentinel } from "../../src/sentinel/ensure";
import { testDeps } from "../deps";
import { waitFor } from "../helpers";

test("ensureSentinel starts the sentinel with the JIT settings added to the caller's environment", async () => {
  const dir = mkdtempSync(join(tmpdir(), "vx-ensure-env-"));
  try {
    const root = join(dir, ".vexillum");
    const seen = join(dir, "env.txt");
    // A stand-in for the binary: records the environment it was started with, then exits.
    const stub = join(dir, "vx-stub");
    writeFileSync(stub, `#!/bin/sh\nenv > "${seen}.tmp" && mv "${seen}.tmp" "${seen}"\n`);
    chmodSync(stub, 0o755);
    const d = { ...testDeps({ cwd: dir, env: { HOME: dir, PATH: process.env.PATH ?? "", CALLER_VAR: "kept" } }), self: [stub] };
    ensureSentinel(d, root, { quiet: true });
    await waitFor(
      () => {
        try {
          return readFileSync(seen, "utf8").length > 0;
        } catch {
          return false;
        }
      },
      10_000,
      "the stub's env file",
    );
    const env = readFileSync(seen, "utf8").split("\n");
    for (const [k, v] of Object.entries(SENTINEL_RUNTIME_ENV)) expect(env).toContain(`${k}=${v}`);
    expect(env).toContain("CALLER_VAR=kept");
    expect(Object.keys(SENTINEL_RUNTIME_ENV)).toEqual(["BUN_JSC_useDFGJIT"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

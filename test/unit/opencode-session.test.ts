// OpenCode's continue lookup for vx resume (CMD-RESUME-01): when the session list cannot be had, the
// refusal says what went wrong and what to do, before anything changed.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realExec } from "../../src/exec";
import { harnessOf } from "../../src/harnesses";
import { writeExecutable } from "../helpers";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vx-oc-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lookup = (PATH: string) => harnessOf("opencode").continueArgs({ camp: dir, exec: realExec, env: { PATH } });

describe("OpenCode's session lookup", () => {
  test("opencode missing from PATH: what to do", async () => {
    await expect(lookup(join(dir, "none"))).rejects.toThrow("opencode not found in PATH, needed to find this soldier's session - put OpenCode on PATH, then resume again");
  });

  test("a list that is not JSON: what to do", async () => {
    mkdirSync(join(dir, "bin"));
    writeExecutable(join(dir, "bin", "opencode"), "#!/bin/sh\necho 'Welcome to OpenCode'\n");
    await expect(lookup(join(dir, "bin"))).rejects.toThrow(
      "could not read OpenCode's session list ('opencode session list --format json' printed something else) - run it in the camp to see what, then resume again",
    );
  });
});

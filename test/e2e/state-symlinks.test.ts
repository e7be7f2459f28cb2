// Links planted in the state dir, through the binary: a one-line refusal, exit 1, nothing written elsewhere.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectKey } from "../../src/state/paths";
import { type Sandbox, taskFixture, vx, writeTaskFile } from "../helpers";
import { initializedSandbox } from "../init-project";

const ID = "0123456789abcdef";
const REFUSED = "is a symbolic link, which vx refuses inside its state dir - remove it (or put what it points to in its place)";

function stateDir(s: Sandbox): string {
  return join(s.home, ".vexillum", "projects", projectKey(s.project));
}

describe("links in the state dir", () => {
  test("vx status refuses a tasks directory that is a link, naming it", async () => {
    using s = await initializedSandbox();
    const elsewhere = mkdtempSync(join(tmpdir(), "vx-elsewhere-"));
    writeTaskFile(s.home, s.project, taskFixture({ id: ID }));
    const tasks = join(stateDir(s), "tasks");
    // The directory moves elsewhere and a link takes its place.
    renameSync(tasks, join(elsewhere, "tasks"));
    symlinkSync(join(elsewhere, "tasks"), tasks);
    const r = await vx(["status"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${tasks}: ${REFUSED}\n` });
  });

  test("vx strike refuses a task's operation lock that is a link, and creates nothing where it points", async () => {
    using s = await initializedSandbox();
    const elsewhere = mkdtempSync(join(tmpdir(), "vx-elsewhere-"));
    const lock = join(stateDir(s), "tasks", `.${ID}.op.lock`);
    mkdirSync(join(stateDir(s), "tasks"), { recursive: true });
    symlinkSync(join(elsewhere, "planted"), lock);
    const r = await vx(["strike", ID], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${lock}: ${REFUSED}\n` });
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

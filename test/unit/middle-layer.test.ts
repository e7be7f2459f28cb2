/**
 * The middle layer's single homes: the commander block's file (refresh and doctor by one rule),
 * the marked-failed note and save, the project state-dir listing, the leased-id reader.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaffoldChecks } from "../../src/doctor/scaffold";
import { renderBlock } from "../../src/scaffold/block";
import { blockFacts, blockFileOf } from "../../src/scaffold/init-plan";
import { failedNote, markFailed } from "../../src/state/mark-failed";
import { StateError } from "../../src/errors";
import { leasedIds } from "../../src/state/leases";
import { projectStateDirs, stateDirPaths } from "../../src/state/paths";
import { createTask, loadTask } from "../../src/state/tasks";
import { taskFixture } from "../helpers";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vx-mid-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BLOCK = renderBlock("en");
const CONFIG = { version: 1, initialized_at: "2026-11-30T10:00:00.000Z", vx_version: "0.1.0" };

describe("which file holds the commander block", () => {
  test("doctor checks the file refresh would write: the recorded one while it holds the block", () => {
    writeFileSync(join(dir, "AGENTS.md"), `# Agents\n\n${BLOCK}`);
    writeFileSync(join(dir, "CLAUDE.md"), `# Claude\n\n${BLOCK}`);
    const config = { ...CONFIG, block_file: "CLAUDE.md" };
    expect(blockFileOf(blockFacts(dir), config.block_file)).toBe("CLAUDE.md");
    const names = scaffoldChecks(dir, config).map((c) => c.name);
    expect(names).toContain("CLAUDE.md vexillum block");
    expect(names).not.toContain("AGENTS.md vexillum block");
  });

  test("a block_file that is neither file is not taken for one", () => {
    writeFileSync(join(dir, "AGENTS.md"), "# Agents\n");
    const names = scaffoldChecks(dir, { ...CONFIG, block_file: "README.md" }).map((c) => c.name);
    expect(names).toContain("AGENTS.md vexillum block");
  });

  test("without a recorded file: the file holding a block, AGENTS.md first; else where init would write", () => {
    expect(blockFileOf(blockFacts(dir), undefined)).toBe("CLAUDE.md");
    writeFileSync(join(dir, "CLAUDE.md"), BLOCK);
    writeFileSync(join(dir, "AGENTS.md"), "# Agents\n");
    expect(blockFileOf(blockFacts(dir), undefined)).toBe("CLAUDE.md");
    writeFileSync(join(dir, "AGENTS.md"), BLOCK);
    expect(blockFileOf(blockFacts(dir), undefined)).toBe("AGENTS.md");
  });
});

describe("markFailed", () => {
  test("the note reads the same for every writer", () => {
    expect(failedNote("no tab")).toBe("[vexillum] no tab - marked failed.");
    expect(failedNote("setup broke", "setup log: x.log")).toBe("[vexillum] setup broke - marked failed; setup log: x.log");
  });

  test("saves failed under the note, guarded on the state it was decided on", async () => {
    const paths = stateDirPaths(join(dir, "state"));
    const t = taskFixture({ status: "pending", output: "earlier" });
    await createTask(paths, t);
    const stale = { ...t, updated_at: "2026-11-30T09:00:00.000Z" };
    expect((await markFailed(paths, stale, "gone", Date.parse("2026-11-30T11:00:00Z"))).written).toBe(false);
    const r = await markFailed(paths, t, "gone", Date.parse("2026-11-30T11:00:00Z"), { extra: { herdr_agent_name: "a1" } });
    expect(r.written).toBe(true);
    expect(loadTask(paths, t.id)?.value).toMatchObject({
      status: "failed",
      updated_at: "2026-11-30T11:00:00.000Z",
      herdr_agent_name: "a1",
      output: "earlier\n\n[vexillum] gone - marked failed.",
    });
  });

  test("a body replaces the task's output above the note", async () => {
    const paths = stateDirPaths(join(dir, "state"));
    const t = taskFixture({ status: "pending", output: "earlier" });
    await createTask(paths, t);
    await markFailed(paths, t, "setup broke", 0, { body: undefined, more: "setup log: l" });
    expect(loadTask(paths, t.id)?.value.output).toBe("[vexillum] setup broke - marked failed; setup log: l");
  });
});

describe("projectStateDirs", () => {
  test("every directory under projects/, sorted; files and a missing dir give nothing", () => {
    expect(projectStateDirs(dir)).toEqual([]);
    for (const n of ["b", "a"]) mkdirSync(join(dir, "projects", n), { recursive: true });
    writeFileSync(join(dir, "projects", "stray"), "");
    expect(projectStateDirs(dir)).toEqual([join(dir, "projects", "a"), join(dir, "projects", "b")]);
  });
});

describe("leasedIds", () => {
  test("ids named by leased_by; undefined without a pool; a corrupt pool throws", () => {
    const paths = stateDirPaths(join(dir, "state"));
    expect(leasedIds(paths)).toBeUndefined();
    mkdirSync(paths.campsDir, { recursive: true });
    const slots = [
      { number: 1, branch: "b1", leased_by: "t1" },
      { number: 2, branch: "b2" },
    ];
    writeFileSync(paths.poolFile, JSON.stringify({ schema_version: 1, slots }));
    expect(leasedIds(paths)).toEqual(new Set(["t1"]));
    writeFileSync(paths.poolFile, "{");
    expect(() => leasedIds(paths)).toThrow(StateError);
  });
});

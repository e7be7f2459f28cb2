// `vx archive` end to end (CMD-ARCHIVE-01): finished tasks leave the list, their files kept whole.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { projectPaths } from "../../src/state/paths";
import { type Sandbox, sandbox, taskFixture, vx, writeTaskFile } from "../helpers";
import { initProject } from "../init-project";

const DONE = "aaaaaaaaaaaaaaaa";
const FAILED = "bbbbbbbbbbbbbbbb";
const RUNNING = "cccccccccccccccc";
const HOLDING = "dddddddddddddddd";

async function project(): Promise<Sandbox & { tasks: string; archive: string }> {
  const s = sandbox();
  await initProject(s.project, s.env);
  const paths = projectPaths(join(s.home, ".vexillum"), s.project);
  for (const [id, status] of [
    [DONE, "done"],
    [FAILED, "failed"],
    [RUNNING, "running"],
    [HOLDING, "done"],
  ] as const) {
    writeTaskFile(s.home, s.project, taskFixture({ id, status, future_field: { kept: id } }));
  }
  // A finished task whose camp was never struck still holds it.
  await acquireCamp(paths, { project: s.project, taskId: HOLDING, base: "main", exec: realExec });
  return Object.assign(s, { tasks: paths.tasksDir, archive: join(paths.tasksDir, "archive") });
}

// `--all`: a failed task is out of the default view (TSK-12) but still listed; archived ones are not.
const listed = async (s: Sandbox) => (await vx(["status", "--all"], { cwd: s.project, env: s.env })).stdout;

describe("vx archive", () => {
  test("a finished task by a prefix of its id: off the list, its file moved whole", async () => {
    using s = await project();
    const before = readFileSync(join(s.tasks, `${DONE}.json`), "utf8");
    const r = await vx(["archive", "aaaa"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 0, stdout: `archived ${DONE}\n`, stderr: `vx: its file is kept in ${s.archive}\n` });
    expect(existsSync(join(s.tasks, `${DONE}.json`))).toBe(false);
    expect(readFileSync(join(s.archive, `${DONE}.json`), "utf8")).toBe(before);
    expect(await listed(s)).not.toContain(DONE);
    expect(await listed(s)).toContain(FAILED);
  });

  test("a running task, or one still holding its camp, is refused and stays", async () => {
    using s = await project();
    const running = await vx(["archive", RUNNING], { cwd: s.project, env: s.env });
    expect(running).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: task ${RUNNING} is running - only a done, failed or shipped task is archived (land, strike or wait for it first)\n`,
    });
    const holding = await vx(["archive", HOLDING], { cwd: s.project, env: s.env });
    expect(holding.stderr).toBe(`vx: task ${HOLDING} still holds its camp - strike it first (vx strike ${HOLDING}), then archive it\n`);
    expect(existsSync(join(s.tasks, `${RUNNING}.json`))).toBe(true);
    expect(existsSync(join(s.tasks, `${HOLDING}.json`))).toBe(true);
  });

  test("--finished: every finished task without a camp; the one holding a camp is named and kept", async () => {
    using s = await project();
    const r = await vx(["archive", "--finished"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`archived ${DONE}\narchived ${FAILED}\n`);
    expect(r.stderr).toStartWith(`vx: kept ${HOLDING}: finished but still holding a camp - strike them first\n`);
    expect(await listed(s)).not.toContain(FAILED);
    const again = await vx(["archive", "--finished"], { cwd: s.project, env: s.env });
    expect(again.stdout).toBe("");
    expect(again.stderr).toEndWith("vx: nothing to archive\n");
  });

  test("usage: neither ids nor --finished, both, or a malformed id (64), nothing moved", async () => {
    using s = await project();
    for (const argv of [[], ["--finished", DONE], ["../x"]]) {
      const r = await vx(["archive", ...argv], { cwd: s.project, env: s.env });
      expect(r.code).toBe(64);
    }
    expect(existsSync(s.archive)).toBe(false);
  });
});

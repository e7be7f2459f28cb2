// The board's actions (FOR-14) below HTTP: the checks before anything touches a path, the command line each action
// runs (its argv, cwd and stdin, seen by a real child standing in for vx), and its exit code and output as the answer.
// The commands themselves through the forum server: test/e2e/forum-actions.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ActionCtx, runAction } from "../../src/forum/actions";
import { realExec } from "../../src/exec";
import { projectPaths } from "../../src/state/paths";
import { ensureProjectRecord } from "../../src/state/project-record";
import { createTask } from "../../src/state/tasks";
import { taskFixture, writeExecutable } from "../helpers";

const ID = "0123456789abcdef";

// Says what it was given, as vx's lines would: stdout data, stderr the refusal; exits as told.
const STAND_IN = `#!/bin/sh
echo "argv: $*"
echo "cwd: $(pwd)"
echo "stdin: $(cat)"
[ -n "$MANY" ] && seq 1 5000
echo "vx: refused here" >&2
exit "\${EXIT_WITH:-0}"
`;

let base: string;
let project: string;
let lines: string[];

function ctx(env: Record<string, string> = {}): ActionCtx {
  return { root: join(base, ".vexillum"), exec: realExec, self: [join(base, "vx")], env: { PATH: process.env.PATH, ...env }, log: (l) => void lines.push(l) };
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "vx-actions-")));
  project = join(base, "project");
  mkdirSync(project);
  writeExecutable(join(base, "vx"), STAND_IN);
  const paths = projectPaths(join(base, ".vexillum"), project);
  ensureProjectRecord(paths);
  await createTask(paths, taskFixture({ id: ID, status: "done" }));
  lines = [];
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("board actions (FOR-14)", () => {
  test("each action runs its command in the project's checkout; an answer goes on stdin, never into argv", async () => {
    let r = await runAction(ctx(), "decide", { project_path: project, task_id: ID, answer: "use --force; rm -rf /" });
    expect(r).toEqual({
      status: 200,
      body: { ok: true, exit: 0, output: `argv: decide ${ID} --stdin\ncwd: ${project}\nstdin: use --force; rm -rf /\nvx: refused here`, error: "" },
    });
    for (const action of ["land", "resume", "redispatch"] as const) {
      r = await runAction(ctx(), action, { project_path: project, task_id: ID, answer: "ignored" });
      expect(r.body.output).toStartWith(`argv: ${action} ${ID}\ncwd: ${project}\nstdin: \n`);
    }
    expect(lines).toContain(`forum: the board ran vx decide ${ID} --stdin in ${project}: exit 0`);
  });

  test("the exit code is the status: 1 a refusal (409, stderr the error), 64 malformed (400)", async () => {
    let r = await runAction(ctx({ EXIT_WITH: "1" }), "land", { project_path: project, task_id: ID });
    expect(r).toEqual({ status: 409, body: { ok: false, exit: 1, output: `argv: land ${ID}\ncwd: ${project}\nstdin:`, error: "vx: refused here" } });
    r = await runAction(ctx({ EXIT_WITH: "64" }), "land", { project_path: project, task_id: ID });
    expect(r.status).toBe(400);
    expect(r.body.ok).toBe(false);
  });

  test("a long output is cut to its end, where the outcome is", async () => {
    const r = await runAction(ctx({ MANY: "1" }), "land", { project_path: project, task_id: ID });
    expect(r.body.output).toMatch(/^\[\.\.\. the first \d+ characters are cut\]\n/);
    expect(r.body.output).toEndWith("4999\n5000\nvx: refused here");
    expect(r.body.output.length).toBeLessThan(17 * 1024);
  });

  test("refused before any command runs: an unknown project or task, a malformed id, a blank answer", async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ project_path: join(base, "other"), task_id: ID }, 404, "the forum knows no such project"],
      [{ project_path: project, task_id: "fedcba9876543210" }, 404, `project ${project} has no task fedcba9876543210`],
      [{ project_path: project, task_id: "../tasks/x" }, 400, '"../tasks/x" is not a task id (16 hex characters)'],
      [{ project_path: project, task_id: ID.toUpperCase() }, 400, `"${ID.toUpperCase()}" is not a task id (16 hex characters)`],
      [{ project_path: project, task_id: 7 }, 400, 'the body must name the task: {"project_path", "task_id"}'],
      [{ project_path: project, task_id: ID, answer: " \n" }, 400, "write an answer first"],
      [{ project_path: project, task_id: ID }, 400, "write an answer first"],
    ];
    for (const [body, status, error] of cases) expect(await runAction(ctx(), "decide", body)).toEqual({ status, body: { ok: false, output: "", error } });
    expect(lines).toEqual([]);
  });

  test("a project whose checkout is gone is refused by name", async () => {
    rmSync(project, { recursive: true });
    expect(await runAction(ctx(), "land", { project_path: project, task_id: ID })).toEqual({
      status: 409,
      body: { ok: false, output: "", error: `the project's checkout ${project} is not there any more` },
    });
  });
});

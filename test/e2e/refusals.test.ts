// Every project command's shared refusals: inside a camp (STA-08), not initialized (CLI-03),
// a malformed task id (TSK-02, 64) and an unknown one (1), all before anything is touched.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../../src/state/paths";
import { git, sandbox, vx } from "../helpers";
import { initProject } from "../init-project";

const ID = "0123456789abcdef";
const WITH_ID: string[][] = [
  ["prompt", ID, "go on"],
  ["decide", ID, "yes"],
  ["redispatch", ID],
  ["land", ID],
  ["strike", ID],
  ["wait", ID],
];
const ALL: string[][] = [["status"], ["dispatch", "fix it"], ["doctor"], ["init", "--yes"], ...WITH_ID];

describe("project command refusals", () => {
  test.each(ALL)("%s from inside a camp", async (...argv) => {
    using s = sandbox();
    const camp = join(s.home, ".vexillum", "projects", projectKey(s.project), "camps", "1", "project");
    mkdirSync(camp, { recursive: true });
    git(camp, "init", "-q");
    const r = await vx(argv, { cwd: camp, env: { ...s.env, HERDR_WORKSPACE_ID: "w1" } });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: running from inside ${camp}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again\n`,
    });
  });

  test.each([["status"], ["dispatch", "fix it"], ...WITH_ID])("%s in a project that was never initialized", async (...argv) => {
    using s = sandbox();
    const r = await vx(argv, { cwd: s.project, env: { ...s.env, HERDR_WORKSPACE_ID: "w1" } });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: project not initialized, run 'vx init' first\n" });
  });

  test.each(WITH_ID.map((a) => a[0]))("%s with a malformed id is a usage error before any file is read", async (cmd) => {
    using s = sandbox();
    const r = await vx([cmd, "../../x", ...(cmd === "prompt" || cmd === "decide" ? ["text"] : [])], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: invalid task id "../../x": expected 16 lowercase hex characters, or a unique prefix of at least 4\n');
  });

  test.each(WITH_ID)("%s of an id with no task file", async (...argv) => {
    using s = sandbox();
    await initProject(s.project, s.env);
    const r = await vx(argv, { cwd: s.project, env: { ...s.env, HERDR_WORKSPACE_ID: "w1", VX_TIME_SCALE: "0.01" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: no task ${ID} in this project - 'vx status' lists its tasks\n`);
  });
});

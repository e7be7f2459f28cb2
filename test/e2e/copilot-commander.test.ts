// `vx init --commander copilot` (HRN-02): the agentStop wake hook it writes, what doctor says of it,
// and that the hook's command is vx's own `sentinel drain` answer (AWT-02) in Copilot's hook format.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COPILOT_WAKE_HOOK, COPILOT_WAKE_HOOK_PATH } from "../../src/harnesses/copilot";
import { installFakeHerdr } from "../fakes/herdr-control";
import { sandbox, vx, writeExecutable } from "../helpers";

const read = (p: string) => readFileSync(p, "utf8");

function withTools(s: ReturnType<typeof sandbox>) {
  Object.assign(s.env, installFakeHerdr(s.bin));
  for (const exe of ["claude", "copilot"]) writeExecutable(join(s.bin, exe), "#!/bin/sh\nexit 0\n");
  return s;
}

describe("vx init --commander copilot", () => {
  test("writes the agentStop wake hook; doctor says it is current, then edited by hand (kept by init)", async () => {
    using s = withTools(sandbox());
    const r = await vx(["init", "--yes", "--commander", "copilot"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    const path = join(s.project, COPILOT_WAKE_HOOK_PATH);
    expect(read(path)).toBe(COPILOT_WAKE_HOOK);
    const hook = JSON.parse(read(path));
    expect(hook.version).toBe(1);
    expect(Object.keys(hook.hooks)).toEqual(["agentStop"]);
    expect(hook.hooks.agentStop[0]).toMatchObject({ type: "command", cwd: "." });
    expect(hook.hooks.agentStop[0].bash).toContain('exec "$v" sentinel drain');
    expect(JSON.parse(read(join(s.project, ".vexillum/config.json"))).commander).toBe("copilot");

    const again = await vx(["init", "--yes", "--commander", "copilot"], { cwd: s.project, env: s.env });
    expect(again.stderr).toContain("nothing to change, every file is current");
    const doctor = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctor.stdout).toContain("[ok] Copilot wake hook - current\n");
    expect(doctor.stdout).toContain("[ok] GitHub Copilot CLI - ");

    writeFileSync(path, read(path).replace("timeoutSec", "timeoutSeconds"));
    expect((await vx(["doctor"], { cwd: s.project, env: s.env })).stdout).toContain("[warn] Copilot wake hook - edited by hand\n");
    const kept = await vx(["init", "--yes", "--commander", "copilot"], { cwd: s.project, env: s.env });
    expect(kept.stderr).toContain(`${COPILOT_WAKE_HOOK_PATH}: edited by hand, left as it is`);
  });

  test("the hook's command prints '{}' when no vx is found, so Copilot ends the turn as usual", async () => {
    using s = withTools(sandbox());
    const bash = JSON.parse(COPILOT_WAKE_HOOK).hooks.agentStop[0].bash as string;
    const proc = Bun.spawnSync(["/bin/sh", "-c", bash], { cwd: s.project, env: { PATH: "/nonexistent", HOME: s.home }, stdout: "pipe", stderr: "pipe" });
    expect(proc.exitCode).toBe(0);
    expect(proc.stdout.toString()).toBe("{}\n");
    expect(proc.stderr.toString()).toContain("vx: not found");
  });
});

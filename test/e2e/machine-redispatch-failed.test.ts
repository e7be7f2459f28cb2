// A `failed` task on another machine (MCH-06, MCH-10, CMD-REDISPATCH-01) over a real sshd on 127.0.0.1: the
// dispatch there failed for real (the machine's harness exited before it was ready) and the mirror here says so;
// `vx redispatch` here runs the machine's own vx in its clone, which re-runs it there under the same id.
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { vx, waitFor, writeExecutable } from "../helpers";
import { machineField } from "./machine-field";

describe("a failed task on another machine", () => {
  test("redispatched there by the machine's vx under the same id; the mirror here follows", async () => {
    await using f = await machineField();
    // The machine's harness, broken while its $HOME/broken exists.
    const claude = join(f.remote.bin, "claude");
    writeExecutable(claude, `#!/usr/bin/env bash\nif [ -e "$HOME/broken" ]; then echo 'Error: not logged in'; sleep 0.5; exit 3; fi\n${readFileSync(claude, "utf8").replace(/^#!.*\n/, "")}`);
    writeFileSync(join(f.remote.home, "broken"), "");
    const r = await vx(["dispatch", "--on", "box", "do the remote thing"], { cwd: f.sb.project, env: f.env });
    expect(r.code).toBe(1);
    const id = /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1] as string;
    expect(r.stdout).toContain("\nstatus=failed\n");
    expect(r.stderr).toContain("[box] vx: claude exited in its tmux session before it became ready");
    // The relay may have mirrored the task while it was still starting: then it brings the failure too.
    await waitFor(() => f.mirror(id).status === "failed", 30_000, "the mirror here to say failed");
    expect(f.mirror(id)).toMatchObject({ id, machine: "box" });

    rmSync(join(f.remote.home, "broken"));
    const again = await vx(["redispatch", id], { cwd: f.sb.project, env: f.env });
    expect(again.stderr.replace(/^(\[box\] )?vx: auto-started sentinel .*\n/gm, "")).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toStartWith(`task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}\nstatus=running\n`);
    const there = f.readJson(join(f.remoteDir(), "tasks", `${id}.json`));
    expect(there).toMatchObject({ id, status: "running", redispatches: 1, prompt: "do the remote thing" });
    expect(f.mirror(id)).toMatchObject({ id, status: "running", machine: "box", redispatches: 1 });
  }, 120_000);
});

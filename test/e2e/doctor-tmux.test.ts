// `vx doctor` for a project on the tmux backend: tmux is required, and so is a tmux new enough.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseTmuxVersion } from "../../src/backends/tmux/doctor";
import { sandbox, vx, writeExecutable } from "../helpers";

const tmuxLines = (out: string) => out.split("\n").filter((l) => /^\[\w+\] tmux( version)?\b/.test(l));

describe("vx doctor: the tmux backend", () => {
  test("a real tmux passes; one older than 3.2 is a missing requirement; no tmux at all is too", async () => {
    using s = sandbox();
    writeExecutable(join(s.bin, "claude"), "#!/bin/sh\nexit 0\n");
    expect((await vx(["init", "--yes", "--backend", "tmux"], { cwd: s.project, env: s.env })).code).toBe(0);
    let r = await vx(["doctor"], { cwd: s.project, env: s.env });
    const real = Bun.spawnSync(["tmux", "-V"])
      .stdout.toString()
      .trim()
      .replace(/^tmux /, "");
    expect(tmuxLines(r.stdout)).toEqual([`[ok] tmux - ${Bun.which("tmux", { PATH: s.env.PATH })}`, `[ok] tmux version - ${real}`]);
    expect(r.stdout).toContain("[optional] herdr - herdr not found in PATH (only needed for the herdr backend)");

    writeExecutable(join(s.bin, "tmux"), "#!/bin/sh\necho 'tmux 3.1c'\n");
    r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(tmuxLines(r.stdout)).toContain("[missing] tmux version - 3.1c is older than 3.2, which the tmux backend needs - upgrade tmux");
    expect(r.code).toBe(1);
  });

  test("version parsing", () => {
    expect(parseTmuxVersion("tmux 3.3a\n")).toEqual([3, 3]);
    expect(parseTmuxVersion("tmux next-3.4")).toEqual([3, 4]);
    expect(parseTmuxVersion("tmux master")).toBeUndefined();
  });
});

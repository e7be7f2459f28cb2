// DOC-11's count of sentinel processes: a process ps listed that has ended by the time its HOME is
// read is not counted (in a parallel run another HOME's sentinel stopping made doctor warn of two).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sentinelCheck } from "../../src/doctor/sentinel";
import { testDeps } from "../deps";
import { execed } from "../exec-wait";
import { execStub } from "../fakes/exec";

const PS = ["ps", "-x", "-ww", "-o", "pid=,command="];

/** A pid that was a process a moment ago and is gone now (spawned, exited, reaped). */
function endedPid(): number {
  const p = Bun.spawnSync(["true"]);
  expect(p.exitCode).toBe(0);
  return p.pid;
}

test.skipIf(process.platform !== "linux")("a sentinel ps listed that has ended since is not counted; live ones of this HOME are", async () => {
  const home = mkdtempSync(join(tmpdir(), "vx-doctor-sentinel-"));
  // Live stand-ins for sentinels of this HOME (doctor reads their environment, not their program).
  const live = [1, 2].map(() => Bun.spawn(["sleep", "30"], { env: { HOME: home } }));
  try {
    await Promise.all(live.map((p) => execed(p.pid, "sleep")));
    const [a, b] = live.map((p) => p.pid);
    const gone = endedPid();
    const count = async (rows: string) => {
      const d = testDeps({ cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" } });
      return sentinelCheck({ ...d, exec: execStub().expect(PS, { stdout: rows }) }, join(home, ".vexillum"));
    };
    expect((await count(`${a} /opt/vx/bin/vx sentinel\n${gone} /opt/vx/bin/vx sentinel\n`)).status).toBe("ok");
    const two = await count(`${a} /opt/vx/bin/vx sentinel\n${b} /usr/local/bin/vx sentinel\n`);
    expect(two.status).toBe("warn");
    expect(two.detail).toContain(`2 sentinel processes are alive (pids ${a}, ${b})`);
  } finally {
    for (const p of live) p.kill("SIGKILL");
    await Promise.all(live.map((p) => p.exited));
    rmSync(home, { recursive: true, force: true });
  }
});

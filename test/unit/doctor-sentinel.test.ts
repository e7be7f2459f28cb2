// DOC-11's count of sentinel processes: a process ps listed that has ended by the time its HOME is
// read is not counted (in a parallel run another HOME's sentinel stopping made doctor warn of two).
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sentinelCheck } from "../../src/doctor/sentinel";
import { testDeps } from "../deps";
import { execStub } from "../fakes/exec";

const PS = ["ps", "-x", "-ww", "-o", "pid=,command="];

/** A pid that was a process a moment ago and is gone now (spawned, exited, reaped). */
function endedPid(): number {
  const p = Bun.spawnSync(["true"]);
  expect(p.exitCode).toBe(0);
  return p.pid;
}

test.skipIf(process.platform !== "linux")("a sentinel ps listed that has ended since is not counted; one of this HOME is", async () => {
  const root = mkdtempSync(join(tmpdir(), "vx-doctor-sentinel-"));
  try {
    // As the kernel has it (what doctor reads), not as the test's preload may have set process.env.
    const home =
      readFileSync("/proc/self/environ", "utf8")
        .split("\0")
        .find((v) => v.startsWith("HOME="))
        ?.slice(5) ?? "";
    const gone = endedPid();
    const count = async (rows: string) => {
      const d = testDeps({ cwd: root, env: { HOME: home, PATH: "/usr/bin:/bin" } });
      const exec = execStub().expect(PS, { stdout: rows });
      return sentinelCheck({ ...d, exec }, root);
    };
    // This test process stands in for a live sentinel of this HOME.
    const live = `${process.pid} /opt/vx/bin/vx sentinel\n`;
    expect((await count(`${live}${gone} /opt/vx/bin/vx sentinel\n`)).status).toBe("ok");
    const two = await count(`${live}${process.pid} /usr/local/bin/vx sentinel\n`);
    expect(two.status).toBe("warn");
    expect(two.detail).toContain(`2 sentinel processes are alive (pids ${process.pid}, ${process.pid})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

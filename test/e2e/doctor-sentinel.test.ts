// Doctor's sentinel and pending-wakes checks (DOC-11, DOC-13) against real processes.
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, vx, waitFor } from "../helpers";
import { type Queue, queue, stopSentinel, taskWithWake } from "../await-kit";

let current: Queue | undefined;
const spawned: Bun.Subprocess[] = [];
afterEach(async () => {
  for (const p of spawned.splice(0)) {
    p.kill("SIGTERM");
    await p.exited;
  }
  if (current) await stopSentinel(current.root);
  current?.[Symbol.dispose]();
  current = undefined;
});

const line = (out: string, name: string) => out.split("\n").find((l) => l.replace(/^\[\w+\] /, "").startsWith(`${name} - `));

describe("doctor: sentinel and pending wakes", () => {
  test("a running sentinel and a waiting await are counted; an empty queue is ok", async () => {
    current = await queue({ VX_TIME_SCALE: "1" });
    const q = current;
    const s = Bun.spawn([VX_BIN, "sentinel"], { cwd: q.home, env: q.env, stdout: "ignore", stderr: "ignore" });
    spawned.push(s);
    await waitFor(() => existsSync(join(q.root, "sentinel.json")), 5000, "sentinel");
    const a = Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: q.project, env: q.env, stdout: "ignore", stderr: "pipe" });
    spawned.push(a);
    await waitFor(() => existsSync(join(q.root, "sentinel-awaiters", `${a.pid}.json`)), 5000, "await registration");
    const r = await vx(["doctor"], { cwd: q.project, env: q.env });
    expect(line(r.stdout, "sentinel")).toBe("[ok] sentinel - running, 1 sentinel await(s) waiting");
    expect(line(r.stdout, "pending wakes")).toBe("[ok] pending wakes - 0 waiting");
  });

  test("a directory in wakes/ is not counted as a wake", async () => {
    current = await queue();
    mkdirSync(join(current.wakes, "4444444444444444.json"), { recursive: true });
    const r = await vx(["doctor"], { cwd: current.project, env: current.env });
    expect(line(r.stdout, "pending wakes")).toBe("[ok] pending wakes - 0 waiting");
  });

  test("a pending wake nobody listens for is a warning", async () => {
    current = await queue();
    taskWithWake(current, "3333333333333333");
    const r = await vx(["doctor"], { cwd: current.project, env: current.env });
    expect(line(r.stdout, "pending wakes")).toBe(
      "[warn] pending wakes - 1 wake(s) waiting with no live sentinel await and no live registered commander, so nobody hears them until the commander's next turn; vx status shows what happened",
    );
  });

  test("a stale sentinel, a waiting successor and a version mismatch are warnings naming pids", async () => {
    // Scale 10: a 50 s poll, so the replaced sentinel notices its binary changed (and retires) only long after
    // doctor looked, however loaded the machine (at scale 1 it retired first under a 5-worker run).
    current = await queue({ VX_TIME_SCALE: "10" });
    const q = current;
    const bin = join(q.bin, "vx");
    copyFileSync(VX_BIN, bin);
    const old = Bun.spawn([bin, "sentinel"], { cwd: q.home, env: q.env, stdout: "ignore", stderr: "ignore" });
    spawned.push(old);
    await waitFor(() => existsSync(join(q.root, "sentinel.json")), 5000, "sentinel");
    const info = JSON.parse(readFileSync(join(q.root, "sentinel.json"), "utf8"));
    writeFileSync(join(q.root, "sentinel.json"), JSON.stringify({ ...info, build: { ...info.build, version: "0.0.1" } }));
    copyFileSync(VX_BIN, `${bin}.new`);
    renameSync(`${bin}.new`, bin);
    const successor = Bun.spawn([bin, "sentinel"], { cwd: q.home, env: q.env, stdout: "ignore", stderr: "ignore" });
    spawned.push(successor);
    await waitFor(() => readFileSync(`/proc/${successor.pid}/cmdline`, "utf8").includes("sentinel"), 5000, "the successor to start");
    const r = await vx(["doctor"], { cwd: q.project, env: q.env });
    const got = line(r.stdout, "sentinel") ?? "";
    expect(got).toStartWith("[warn] sentinel - ");
    expect(got).toContain(`sentinel processes are alive (pids `);
    expect(got).toContain(`the running sentinel (pid ${old.pid}) is version 0.0.1 but this binary is `);
    expect(got).toContain(
      `the running sentinel (pid ${old.pid}) started from a binary that has since changed (${bin} was replaced on disk) - it retires on its own within seconds, or stop it with 'kill ${old.pid}'`,
    );
    expect(got).toEndWith(" (the next 'vx dispatch' starts a current one)");
  });
});

// `vx sentinel` as a process: singleton, strict subcommands, signals, retirement (SEN-01..03, 22..24).
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeHerdr } from "../fakes/herdr-control";
import { VX_BIN, alive, sandbox, vx, waitFor } from "../helpers";

function start(bin: string, env: Record<string, string>, cwd: string) {
  return Bun.spawn([bin, "sentinel"], { cwd, env, stdout: "pipe", stderr: "pipe" });
}
const text = async (s: ReadableStream) => new Response(s).text();

describe("vx sentinel process", () => {
  test("8 started at once: exactly one runs, the others refuse naming its pid", async () => {
    using s = sandbox();
    Object.assign(s.env, installFakeHerdr(s.bin), { VX_TIME_SCALE: "0.01" });
    const procs = Array.from({ length: 8 }, () => start(VX_BIN, s.env, s.home));
    const root = join(s.home, ".vexillum");
    const codes = new Map<number, number>();
    for (const p of procs) void p.exited.then((c) => codes.set(p.pid, c));
    await waitFor(() => codes.size === 7, 10_000, "seven refusals");
    const running = procs.filter((p) => !codes.has(p.pid)).map((p) => ({ p }));
    expect(running).toHaveLength(1);
    const pid = Number(readFileSync(join(root, "sentinel.pid"), "utf8"));
    expect(pid).toBe(running[0].p.pid);
    for (const p of procs.filter((p) => codes.has(p.pid))) {
      expect(codes.get(p.pid)).toBe(1);
      expect(await text(p.stderr)).toBe(`vx: a sentinel is already running (pid ${pid}) for ${root} - not starting a second one\n`);
    }
    running[0].p.kill("SIGTERM");
    expect(await running[0].p.exited).toBe(0);
    expect(existsSync(join(root, "sentinel.pid"))).toBe(false);
    expect(existsSync(join(root, "sentinel.json"))).toBe(false);
  });

  test("SIGTERM, SIGINT, SIGHUP: logs, removes its files and exits 0", async () => {
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      using s = sandbox();
      const p = start(VX_BIN, { ...s.env, VX_TIME_SCALE: "0.01" }, s.home);
      const root = join(s.home, ".vexillum");
      await waitFor(() => existsSync(join(root, "sentinel.json")), 5000, "sentinel.json");
      const info = JSON.parse(readFileSync(join(root, "sentinel.json"), "utf8"));
      expect(info).toMatchObject({ pid: p.pid, build: { executable: VX_BIN, resolved: VX_BIN } });
      p.kill(sig);
      expect(await p.exited).toBe(0);
      const out = await text(p.stdout);
      expect(out).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z sentinel: polling .* every 0\.05s as vx \S+ \(ctrl-c to stop\)\n/);
      expect(out).toContain(`sentinel: stopped by ${sig}\n`);
      expect(existsSync(join(root, "sentinel.json"))).toBe(false);
    }
  });

  test("vx sentinel stop: stops this state root's sentinel, and nothing that only claims to be it", async () => {
    using s = sandbox();
    const p = start(VX_BIN, { ...s.env, VX_TIME_SCALE: "0.01" }, s.home);
    const root = join(s.home, ".vexillum");
    await waitFor(() => existsSync(join(root, "sentinel.json")), 5000, "sentinel.json");
    const r = await vx(["sentinel", "stop"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 0, stdout: "", stderr: `vx: stopped the sentinel (pid ${p.pid}); the next vx dispatch starts it again\n` });
    expect(await p.exited).toBe(0);
    expect(await vx(["sentinel", "stop"], { cwd: s.project, env: s.env })).toEqual({ code: 0, stdout: "", stderr: "vx: no sentinel is running\n" });
    // A pid file naming another process (here a sleep) is never signalled.
    const other = Bun.spawn(["sleep", "30"], { stdout: "ignore" });
    try {
      writeFileSync(join(root, "sentinel.pid"), `${other.pid}\n`);
      const planted = await vx(["sentinel", "stop"], { cwd: s.project, env: s.env });
      expect(planted).toEqual({ code: 0, stdout: "", stderr: "vx: no sentinel is running\n" });
      expect(alive(other.pid)).toBe(true);
    } finally {
      other.kill();
    }
  });

  test.each([[["status"]], [["run"]], [["drain", "now"]]])("`vx sentinel %p` is a usage error and never starts the loop", async (argv: string[]) => {
    using s = sandbox();
    const r = await vx(["sentinel", ...argv], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith(argv.length === 1 ? `vx: unknown sentinel subcommand "${argv[0]}"\n` : `vx: unexpected argument "now"\n`);
    expect(r.stderr).toContain("Usage: vx sentinel");
    expect(existsSync(join(s.home, ".vexillum", "sentinel.lock"))).toBe(false);
  });

  test("retires when its binary is replaced on disk, and a successor takes over", async () => {
    using s = sandbox();
    const bin = join(s.bin, "vx");
    copyFileSync(VX_BIN, bin);
    const env = { ...s.env, VX_TIME_SCALE: "0.01" };
    const p = start(bin, env, s.home);
    const root = join(s.home, ".vexillum");
    await waitFor(() => existsSync(join(root, "sentinel.json")), 5000, "sentinel.json");
    // Same bytes, new file: a rebuild must be noticed even when the version is unchanged.
    const tmp = `${bin}.new`;
    copyFileSync(VX_BIN, tmp);
    writeFileSync(tmp, readFileSync(tmp)); // fresh mtime
    require("node:fs").renameSync(tmp, bin);
    // The successor keeps the real 15 s retire wait: a loaded machine may take a while to retire
    // the old one, and the test is about the hand-over, not its speed.
    const successor = start(bin, { ...env, VX_TIME_SCALE: "1" }, s.home);
    expect(await p.exited).toBe(0);
    const out = await text(p.stdout);
    expect(out).toContain(`sentinel: retiring, ${bin} was replaced on disk - the next vx dispatch, prompt or Stop hook await starts a fresh one\n`);
    await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(join(root, "sentinel.json"), "utf8")).pid === successor.pid;
        } catch {
          return false;
        }
      },
      15_000,
      "the successor's sentinel.json",
    );
    successor.kill("SIGTERM");
    expect(await successor.exited).toBe(0);
  });
});

describe("a sentinel whose state root is removed", () => {
  test("stops by itself instead of polling a directory that is gone", async () => {
    using s = sandbox();
    const root = join(s.home, ".vexillum");
    const p = start(VX_BIN, { ...s.env, VX_TIME_SCALE: "0.01" }, s.home);
    await waitFor(() => existsSync(join(root, "sentinel.json")), 5000, "sentinel.json");
    rmSync(root, { recursive: true, force: true });
    expect(await p.exited).toBe(0);
    expect(await text(p.stdout)).toContain(`sentinel: stopping, ${root} was removed\n`);
  });
});

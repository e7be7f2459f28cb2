/**
 * CMD-DEMO-01/02: `vx demo` run end to end with the built binary (real git, real tmux, the real
 * sentinel and await), each step's narration line asserted, and nothing left behind afterwards:
 * no tmux server on its socket, no sentinel (nor any process) of its state root, no temp dir.
 * Also interrupted half-way (Ctrl-C), and the demo harness refused outside the demo.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { VX_BIN, alive, sandbox, vx, waitFor } from "../helpers";

type Demo = { tmp: string; env: Record<string, string> };

function demoSandbox(s: ReturnType<typeof sandbox>): Demo {
  const tmp = join(dirname(s.home), "tmp");
  mkdirSync(tmp);
  return { tmp, env: { ...s.env, TMPDIR: tmp } };
}

/** Pids of live processes whose environment names `home` as HOME (Linux only; elsewhere none). */
function processesOf(home: string): number[] {
  if (process.platform !== "linux") return [];
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Everything the narration names that must be gone: the socket's server, the sentinel, the dir. */
function assertNothingLeft(d: Demo, stderr: string): void {
  const demoDir = /private HOME: (\S+)\/home\/\.vexillum/.exec(stderr)?.[1];
  expect(demoDir).toBeDefined();
  // Named once the soldiers run; a demo stopped before that made its server at the same place.
  const socket = /tmux -S (\S+) attach/.exec(stderr)?.[1] ?? join(demoDir!, "tmux", `tmux-${process.getuid?.()}`, "default");
  const ls = Bun.spawnSync(["tmux", "-S", socket, "list-sessions"], { env: d.env, stdout: "pipe", stderr: "pipe" });
  expect(ls.exitCode).not.toBe(0);
  for (const m of stderr.matchAll(/auto-started sentinel \(pid (\d+)\)/g)) expect(alive(Number(m[1]))).toBe(false);
  expect(processesOf(join(demoDir!, "home"))).toEqual([]);
  expect(readdirSync(d.tmp)).toEqual([]);
}

/** `vx demo` started in the background, its narration read as it comes. */
function startDemo(s: ReturnType<typeof sandbox>, d: Demo) {
  const proc = Bun.spawn([VX_BIN, "demo"], { cwd: s.home, env: d.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  let text = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) text += decoder.decode(chunk);
  })();
  return { proc, stderr: () => text, reading };
}

describe("vx demo", () => {
  test("runs every step of the loop and leaves nothing behind", async () => {
    using s = sandbox();
    const d = demoSandbox(s);
    const r = await vx(["demo"], { cwd: s.home, env: d.env });
    expect(r.stderr).toContain("demo finished in");
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n");
    const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
    expect(count(/^\$ vx init --yes --backend tmux$/)).toBe(1);
    expect(count(/^\$ vx dispatch --kind (mission|scout) --backend tmux --harness demo /)).toBe(3);
    expect(count(/^ {4}status=running$/)).toBeGreaterThanOrEqual(3);
    expect(count(/^ {2}(alpha|bravo|charlie): tmux -S \S+ attach -r -t \S+$/)).toBe(3);
    expect(count(/^\$ vx sentinel await$/)).toBeGreaterThanOrEqual(2);
    expect(count(/^ {4}- scout [0-9a-f]{16}: running -> blocked$/)).toBe(1);
    expect(count(/^\$ vx decide [0-9a-f]{16} /)).toBe(1);
    expect(count(/^ {4}- mission [0-9a-f]{16}: running -> done$/)).toBeGreaterThanOrEqual(2);
    expect(count(/^ {4}vx: vexillum\/[0-9a-f]{16} is not a fast-forward of main/)).toBe(1);
    expect(count(/^\$ vx prompt [0-9a-f]{16} .*rebase onto main/)).toBe(1);
    expect(count(/^ {4}landed: fast-forwarded /)).toBe(2);
    expect(count(/^\$ vx strike [0-9a-f]{16}$/)).toBe(1);
    expect(count(/^ {4}struck: camp returned to the pool, tmux session closed\.$/)).toBe(3);
    expect(count(/^\$ vx status --all$/)).toBe(1);
    expect(count(/^ {4}[0-9a-f]{16} {2}mission +landed /)).toBe(2);
    expect(count(/^ {4}[0-9a-f]{16} {2}scout +struck /)).toBe(1);
    expect(count(/^ {8}landed: [0-9a-f]{40} at /)).toBe(2);
    expect(r.stderr).toContain("    The greeting should be in Spanish");
    expect(r.stderr).toContain("    Hello, world!\n    Welcome, friends of the shop!");
    expect(r.stderr).toContain("nothing left behind");
    expect(r.stdout).toBe("");
    assertNothingLeft(d, r.stderr);
  }, 180_000);

  test("Ctrl-C half-way still stops the sentinel and the tmux server and removes the temp dir", async () => {
    using s = sandbox();
    const d = demoSandbox(s);
    const { proc, stderr, reading } = startDemo(s, d);
    try {
      await waitFor(() => stderr().includes("$ vx sentinel await"), 120_000, "the demo to wait for its first wake");
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(130);
      await reading;
      const stderrText = stderr();
      expect(stderrText).toContain("demo FAILED after");
      expect(stderrText).toContain("nothing left behind");
      assertNothingLeft(d, stderrText);
    } finally {
      proc.kill("SIGKILL");
    }
  }, 180_000);

  test("killed outright (SIGKILL), it leaves its world running; the next vx demo stops and removes it first", async () => {
    using s = sandbox();
    const d = demoSandbox(s);
    const { proc, stderr: output, reading } = startDemo(s, d);
    let stderr = "";
    let socket: string | undefined;
    let home: string | undefined;
    let sentinels: number[] = [];
    try {
      await waitFor(() => output().includes("$ vx sentinel await"), 120_000, "the demo to wait for its first wake");
      proc.kill("SIGKILL");
      await proc.exited;
      await reading;
      stderr = output();
      socket = /tmux -S (\S+) attach/.exec(stderr)?.[1];
      home = `${/private HOME: (\S+)\/home\/\.vexillum/.exec(stderr)?.[1]}/home`;
      sentinels = [...stderr.matchAll(/auto-started sentinel \(pid (\d+)\)/g)].map((m) => Number(m[1]));
      // What it left: its tmux server with the soldiers, its sentinel, its processes, its temp dir.
      expect(Bun.spawnSync(["tmux", "-S", socket!, "list-sessions"], { env: d.env, stdout: "ignore", stderr: "ignore" }).exitCode).toBe(0);
      expect(sentinels.filter(alive).length).toBe(1);
      expect(readdirSync(d.tmp).length).toBe(1);

      // The next demo cleans up first; on its first command, Ctrl-C ends it (a whole demo is the first test's).
      const again = startDemo(s, d);
      try {
        await waitFor(() => again.stderr().includes("$ vx init --yes"), 120_000, "the next demo past its clean-up");
        again.proc.kill("SIGINT");
        expect(await again.proc.exited).toBe(130);
        await again.reading;
      } finally {
        again.proc.kill("SIGKILL");
      }
      const againText = again.stderr();
      expect(againText).toContain(`an earlier vx demo was stopped before its teardown: its tmux server, sentinel and temp dir ${dirname(home)} are cleaned up now\n`);
      expect(againText.indexOf("cleaned up now")).toBeLessThan(againText.indexOf("$ vx init --yes"));
      // The Ctrl-C came during its first commands: no wait for a wake was started after it.
      expect(againText).not.toContain("$ vx sentinel await");
      expect(Bun.spawnSync(["tmux", "-S", socket!, "list-sessions"], { env: d.env, stdout: "ignore", stderr: "ignore" }).exitCode).not.toBe(0);
      for (const pid of sentinels) expect(alive(pid)).toBe(false);
      expect(processesOf(home)).toEqual([]);
      assertNothingLeft(d, againText);
    } finally {
      proc.kill("SIGKILL");
      // Whatever the fix failed to stop: the server by its socket, the sentinel by its pid (still a sentinel), nothing else.
      if (socket) Bun.spawnSync(["tmux", "-S", socket, "kill-server"], { env: d.env, stdout: "ignore", stderr: "ignore" });
      for (const pid of sentinels) if (alive(pid) && processesOf(home ?? "").includes(pid)) process.kill(pid, "SIGKILL");
    }
  }, 300_000);

  test("without tmux on PATH: one line naming it, and nothing made", async () => {
    using s = sandbox();
    const d = demoSandbox(s);
    symlinkSync(Bun.which("git")!, join(s.bin, "git"));
    const r = await vx(["demo"], { cwd: s.home, env: { ...d.env, PATH: s.bin } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("vx: vx demo needs tmux on PATH - install tmux, then run vx demo again\n");
    expect(readdirSync(d.tmp)).toEqual([]);
  });

  test("the demo harness is refused outside vx demo, and on herdr", async () => {
    using s = sandbox();
    const init = await vx(["init", "--yes", "--backend", "tmux"], { cwd: s.project, env: s.env });
    expect(init.code).toBe(0);
    const tmux = await vx(["dispatch", "--harness", "demo", "--backend", "tmux", "do it"], { cwd: s.project, env: s.env });
    expect(tmux.code).toBe(1);
    expect(tmux.stderr).toBe("vx: the demo harness is for 'vx demo' only - run: vx demo\n");
    const herdr = await vx(["dispatch", "--harness", "demo", "--backend", "herdr", "do it"], { cwd: s.project, env: { ...s.env, VX_DEMO: "1" } });
    expect(herdr.code).toBe(1);
    expect(herdr.stderr).toBe("vx: the demo harness runs only on the tmux backend - use --backend tmux (or just run: vx demo)\n");
    expect((await vx(["status"], { cwd: s.project, env: s.env })).stdout).toBe("no tasks yet in this project.\n");
  });
});

// AWT-06 with the real hook command: a harness runs `<sh> -c <HOOK-01>`; where /bin/sh is dash the
// shell stays between the harness and the await. The owner is the harness either way.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { type Queue, alive, queue, stopSentinel } from "../await-kit";
import { VX_BIN, processTable, waitFor } from "../helpers";

let current: Queue | undefined;
afterEach(async () => {
  if (current) await stopSentinel(current.root);
  current?.[Symbol.dispose]();
  current = undefined;
});

type Record_ = { pid: number; owner_pid: number; wrapper_pids?: number[] };
function records(q: Queue): Record_[] {
  const dir = join(q.root, "sentinel-awaiters");
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")) as Record_);
  } catch {
    return [];
  }
}

/** Live `vx sentinel await` processes started from `q`'s bin dir (read full width, never cut). */
function liveAwaits(q: Queue): number[] {
  return processTable()
    .filter(([, args]) => args.startsWith(`${q.bin}/`) && /^\S+ sentinel await$/.test(args))
    .map(([pid]) => pid);
}

/**
 * A harness's terminal: wide (no COLUMNS), or a normal 80 columns with vx found deep in a temp
 * dir, so that both the hook wrapper's line and the await's own line are longer than the terminal.
 */
type Terminal = { columns?: string; deepVx?: boolean };

function hookRunner(q: Queue, shell: string, term: Terminal = {}) {
  let bin = q.bin;
  if (term.deepVx) {
    bin = join(q.bin, ...Array.from({ length: 6 }, (_, i) => `deep-${i}-${"d".repeat(16)}`));
    mkdirSync(bin, { recursive: true });
  }
  symlinkSync(VX_BIN, join(bin, "vx"));
  const env = { ...q.env, PATH: `${bin}:${q.env.PATH}`, ...(term.columns ? { COLUMNS: term.columns } : {}) };
  const runner = Bun.spawn(["bun", join(import.meta.dir, "../fixtures/hook-runner.ts"), shell, q.project], {
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = runner.stdout.getReader();
  return {
    runner,
    async hook(): Promise<number> {
      runner.stdin.write("hook\n");
      runner.stdin.flush();
      return Number(new TextDecoder().decode((await reader.read()).value).trim());
    },
  };
}

const SHELLS = [
  ["dash", "/bin/dash"],
  ["bash", "/bin/bash"],
] as const;
const TERMINALS: [string, Terminal][] = [
  ["a wide terminal", {}],
  ["80 columns with a long vx path", { columns: "80", deepVx: true }],
];

describe.each(SHELLS)("the Stop hook under %s", (_name, shell) => {
  test.each(TERMINALS)("in %s, three turns leave one await, owned by the harness; the harness's death ends it", async (_term, term) => {
    current = await queue({ VX_TIME_SCALE: "0.02" });
    const q = current;
    const h = hookRunner(q, shell, term);
    for (let turn = 1; turn <= 3; turn++) {
      const hookPid = await h.hook();
      await waitFor(() => records(q).some((r) => r.pid === hookPid || r.wrapper_pids?.[0] === hookPid), 10_000, `turn ${turn}'s await`);
      await waitFor(() => records(q).length === 1, 10_000, "one record after the older awaits are stopped");
      await waitFor(() => liveAwaits(q).length === 1, 10_000, `one live await after turn ${turn}, not ${liveAwaits(q).length}`);
    }
    const [rec] = records(q);
    expect(liveAwaits(q)).toEqual([rec!.pid]);
    expect(rec?.owner_pid).toBe(h.runner.pid);
    // dash keeps the -c shell as the await's parent; bash execs straight into vx.
    if (shell === "/bin/dash") expect(rec?.wrapper_pids?.length).toBe(1);
    else expect(rec?.wrapper_pids).toBeUndefined();
    h.runner.kill("SIGKILL");
    await waitFor(() => !alive(rec!.pid), 10_000, "the await to notice its owner is gone");
    await waitFor(() => liveAwaits(q).length === 0, 10_000, "no orphaned await");
    expect(records(q)).toEqual([]);
  });

  test("the wrapper shell's death is owner loss too", async () => {
    current = await queue({ VX_TIME_SCALE: "0.02" });
    const q = current;
    const h = hookRunner(q, shell);
    const hookPid = await h.hook();
    const rec = await waitFor(() => records(q)[0], 10_000, "the await");
    if (shell === "/bin/dash") {
      expect(rec.wrapper_pids).toEqual([hookPid]);
      process.kill(hookPid, "SIGKILL");
      await waitFor(() => !alive(rec.pid), 10_000, "the await to notice its wrapper is gone");
      expect(records(q)).toEqual([]);
    } else {
      expect(rec.pid).toBe(hookPid);
    }
    h.runner.kill("SIGKILL");
    await waitFor(() => !alive(rec.pid), 10_000, "the await to end");
  });
});

function ancestors(pid: number): number[] {
  const out: number[] = [];
  for (let p = pid; p > 1 && out.length < 64; ) {
    const ps = Bun.spawnSync(["ps", "-o", "ppid=", "-p", String(p)], { stdout: "pipe", stderr: "ignore" });
    p = Number(ps.stdout.toString().trim());
    if (!Number.isInteger(p) || p <= 0) break;
    out.push(p);
  }
  return out;
}

describe("what the harness's exit takes with it", () => {
  test("the sentinel an await auto-starts is not in the hook's process tree (SEN-23)", async () => {
    current = await queue({ VX_TIME_SCALE: "0.02" });
    const q = current;
    const h = hookRunner(q, "/bin/dash");
    const hookPid = await h.hook();
    const rec = await waitFor(() => records(q)[0], 10_000, "the await");
    const pidFile = join(q.root, "sentinel.pid");
    const sentinel = await waitFor(
      () => {
        try {
          return Number(readFileSync(pidFile, "utf8").trim()) || undefined;
        } catch {
          return undefined;
        }
      },
      10_000,
      "the auto-started sentinel",
    );
    const line = ancestors(sentinel);
    for (const pid of [rec.pid, hookPid, h.runner.pid, process.pid]) expect(line).not.toContain(pid);
    // A harness that kills its hook's whole tree on exit leaves the sentinel running.
    h.runner.kill("SIGKILL");
    process.kill(hookPid, "SIGKILL");
    await waitFor(() => !alive(rec.pid), 10_000, "the await to end");
    expect(alive(sentinel)).toBe(true);
  });
});

describe("a non-interactive Claude Code session (print mode, SDK)", () => {
  test.each([
    ["CLAUDE_CODE_ENTRYPOINT=sdk-cli", { CLAUDE_CODE_ENTRYPOINT: "sdk-cli" }, []],
    ["an owner started with -p", { CLAUDECODE: "1" }, ["-p"]],
    ["an owner started with --print", { CLAUDECODE: "1" }, ["--print", "hi"]],
  ] as const)("%s: the await exits 0 at once and registers nothing", async (_what, env, args) => {
    current = await queue();
    const q = current;
    const parent = Bun.spawn(["bun", join(import.meta.dir, "../fixtures/parent.ts"), VX_BIN, q.project, ...args], {
      env: { ...q.env, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await parent.exited).toBe(0);
    expect(await new Response(parent.stderr).text()).toBe("");
    expect(records(q)).toEqual([]);
  });

  test("an interactive session (CLAUDE_CODE_ENTRYPOINT=cli) still waits", async () => {
    current = await queue();
    const q = current;
    const parent = Bun.spawn(["bun", join(import.meta.dir, "../fixtures/parent.ts"), VX_BIN, q.project], {
      env: { ...q.env, CLAUDE_CODE_ENTRYPOINT: "cli", CLAUDECODE: "1" },
      stdout: "pipe",
      stderr: "inherit",
    });
    await waitFor(() => records(q).length === 1, 10_000, "the await to register");
    parent.kill("SIGKILL");
    await waitFor(() => records(q).length === 0, 10_000, "the await to end with its owner");
  });
});

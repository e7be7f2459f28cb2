// What vx's children may cost it (issue 25): a camp_setup command's output is streamed to the setup
// log up to a cap with a bounded tail kept (STA-10), never held whole in memory; and what it started
// goes when it exits, also a child that left its process group (setsid) or closed its output.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COUNTS } from "../../src/time";
import { VX_BIN, alive, waitFor } from "../helpers";
import { type Field, field, taskIdOf } from "./soldier-field";

const quiet = (stderr: string) => stderr.replace(/^vx: auto-started sentinel.*\n/m, "");

function setConfig(f: Field, extra: Record<string, unknown>): void {
  const path = join(f.project, ".vexillum", "config.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), ...extra }, null, 2));
}

const started: Bun.Subprocess[] = [];
// Pid files of background sleeps the setup commands start, outside the field (gone by cleanup time).
const pidDirs: string[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  for (const dir of pidDirs.splice(0)) {
    for (const pid of pidsIn(dir)) if (alive(pid) && isSleep(pid)) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

function isSleep(pid: number): boolean {
  const ps = Bun.spawnSync(["ps", "-o", "comm=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
  return ps.stdout.toString().trim().split("/").pop() === "sleep";
}

function pidsIn(dir: string): number[] {
  return ["setsid.pid", "quiet.pid"]
    .map((n) => join(dir, n))
    .filter(existsSync)
    .map((f) => Number(readFileSync(f, "utf8").trim()));
}

/** A shell script that leaves two sleeps behind: one in a session of its own, one with its output closed; each writes its pid. */
function leaver(dir: string): string {
  return `setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! > "${dir}/setsid.pid"; sleep 1001 >/dev/null 2>&1 </dev/null & echo $! > "${dir}/quiet.pid"`;
}

/** Peak resident memory of `pid` in KiB so far (Linux), or undefined when it cannot be read. */
function peakKiB(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `vx <args>` to its end, sampling its peak resident memory meanwhile. */
async function runSampled(f: Field, args: string[]): Promise<{ code: number; stdout: string; stderr: string; peakMiB: number }> {
  const proc = Bun.spawn([VX_BIN, ...args], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  let peak = 0;
  await waitFor(
    () => {
      peak = Math.max(peak, peakKiB(proc.pid) ?? 0);
      return proc.exitCode !== null || proc.signalCode !== null;
    },
    110_000,
    `vx ${args[0]} to end`,
  );
  const [stdout, stderr] = await out;
  return { code: proc.exitCode ?? -1, stdout, stderr, peakMiB: Math.round(peak / 1024) };
}

const LINE = "npm warn deprecated left-pad@1.3.0: use String.prototype.padStart()";

describe("camp setup output (STA-10)", () => {
  test("64 MiB from a failing command: the log holds the cap and says what it left out; the tail and the failure line are the last ones", async () => {
    await using f = await field();
    const script = `awk 'BEGIN { while (n < 67108864) { print "${LINE}"; n += ${LINE.length + 1} } }'; echo 'fatal: ran out of registry retries' >&2; exit 3`;
    setConfig(f, { camp_setup: [["sh", "-c", script]] });
    const r = await runSampled(f, ["dispatch", "fix it"]);
    console.log(`vx dispatch with 64 MiB of camp_setup output: peak RSS ${r.peakMiB} MiB`);
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toBe(`vx: camp setup failed: sh -c ${JSON.stringify(script)} exited 3: fatal: ran out of registry retries\n`);
    const id = taskIdOf(r.stdout);
    const log = join(f.paths.stateDir, "logs", `${id}-setup.log`);
    expect(statSync(log).size).toBeLessThan(COUNTS.campSetupLogBytes + 4096);
    const text = readFileSync(log, "utf8");
    expect(text).toContain(`${LINE}\n${LINE}\n`);
    expect(text).toMatch(/\n\(\d+ more bytes of output not logged: past the 1 MiB cap\)\nexited 3\n$/);
    const output = f.task(id).output ?? "";
    expect(output).toContain("fatal: ran out of registry retries");
    expect(output.split("\n").filter((l) => l === LINE).length).toBeLessThanOrEqual(COUNTS.campSetupTailLines);
    // Held whole, the output alone would be 64 MiB, more than twice over as a string and its copies.
    expect(r.peakMiB).toBeLessThan(160);
  }, 120_000);
});

describe("camp setup leftovers (STA-10)", () => {
  test("a command that exits 0 leaving a setsid'd child and one with its output closed: both go", async () => {
    await using f = await field();
    const dir = mkdtempSync(join(tmpdir(), "vx-leftovers-"));
    pidDirs.push(dir);
    setConfig(f, { camp_setup: [["sh", "-c", `${leaver(dir)}; echo set up`]] });
    const r = await runSampled(f, ["dispatch", "fix it"]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const pids = pidsIn(dir);
    expect(pids).toHaveLength(2);
    await waitFor(() => pids.every((pid) => !alive(pid)), 10_000, `the setup's leftovers ${pids.join(", ")} to be gone`);
  }, 120_000);
});

#!/usr/bin/env bun
/**
 * The machine relay (MCH-08) over a real OpenSSH server on 127.0.0.1, set up as test/e2e/machine-dispatch.test.ts does:
 * the machine is a second HOME behind the sshd kit (its own vx, sentinel and tmux), the soldier a stand-in `claude`
 * that reports working and finishes when its go-file appears. Each figure beside its baseline from the same run:
 * 1. wake latency, the wake's `detected_at` -> its file in the local queue, for N soldiers `--on` the machine, against
 *    N local tmux soldiers (the floor: there the local sentinel writes the file itself);
 * 2. relay ssh processes with N soldiers in flight (MCH-08: one per machine, whatever N);
 * 3. CPU and RSS over 10 s with N soldiers in flight and nothing changing: the local sentinel, its relay's ssh and the
 *    machine's `vx machine relay`, against the same sentinel idle before any dispatch --on;
 * 4. `vx dispatch --on` against `vx dispatch --backend tmux`, interleaved.
 * Both sides run at VX_TIME_SCALE=0.1, as the e2e test; one set in the environment is used instead (1: nominal timing,
 * a run of about 4 minutes, most of it dispatch's quick-settle window).
 * Usage: bun run build && bun bench/remote-relay.ts [N=5]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRAILER } from "../src/lifecycle/evidence";
import { projectKey } from "../src/state/paths";
import { scaled } from "../src/time";
import { type Sandbox, VX_BIN, processTable, sandbox, stopSentinels, vx, writeExecutable } from "../test/helpers";
import { type Sshd, startSshd } from "../test/sshd-real";
import { sandboxPath } from "../test/tool-path";
import { median, rssKiB } from "./lib";

const n = Number(process.argv[2] ?? 5);
const scale = process.env.VX_TIME_SCALE ?? "0.1";
/** A vx duration at this run's time scale, in ms. */
const at = (name: Parameters<typeof scaled>[0]) => scaled(name, { VX_TIME_SCALE: scale });
const WINDOW_MS = 10_000;
// Every temp dir of the run (sandboxes, the sshd kit's, the helpers' git template and tool links) lands in this one.
const runDir = mkdtempSync(join(tmpdir(), "vx-bench-relay-"));
process.env.TMPDIR = runDir;
const CLK_TCK = Number(Bun.spawnSync(["getconf", "CLK_TCK"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdout: "pipe" }).stdout.toString());

/** The e2e test's soldier with `vx` given: ready, working until $HOME/go-<task id> appears, then a commit, its closing lines, idle. */
const soldier = (vxPath: string) => `stty -echo
printf '\\342\\235\\257 \\n'
IFS= read -r first
${vxPath} report working
while [ ! -e "$HOME/go-$VX_TASK_ID" ]; do sleep 0.1; done
git -c user.name=soldier -c user.email=soldier@vx.invalid commit -q --allow-empty -m "bench work"
printf '%s\\n' '${TRAILER}' 'Fixed it.'
${vxPath} report idle
exec cat
`;

/**
 * `claude` in `bin`, running the soldier as argv[0] `claude`: tmux names a pane's program by it, and a shell there (a
 * script's interpreter) means the harness exited (TMX-04), which the sentinel settles as interrupted once its windows pass.
 */
function installSoldier(bin: string, vxPath: string): void {
  writeFileSync(join(bin, "soldier.sh"), soldier(vxPath));
  writeExecutable(join(bin, "claude"), '#!/usr/bin/env bash\nexec -a claude bash "${0%/*}/soldier.sh" "$@"\n');
}

/** Polls `ok` every 10 ms; when it first held (Date.now(), the clock vx stamps `detected_at` with). */
async function when(ok: () => boolean, ms: number, what: string): Promise<number> {
  const end = Date.now() + ms;
  for (;;) {
    if (ok()) return Date.now();
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** utime + stime of `pid` in clock ticks (fields 14 and 15 of /proc/<pid>/stat, counted after the command's parenthesis). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

type Cost = { cpuMs: number; rssKiB: number };

/** CPU over `WINDOW_MS` of wall time and RSS at its end, per process; `sample` runs about once a second meanwhile. */
async function idleCost<K extends string>(pids: Record<K, number>, sample: () => void = () => {}): Promise<{ wallMs: number; cost: Record<K, Cost> }> {
  const names = Object.keys(pids) as K[];
  const before = names.map((k) => cpuTicks(pids[k]));
  const t0 = performance.now();
  // The sleep is the measurement: a fixed stretch of wall time with nothing changing.
  for (let left = WINDOW_MS; left > 0; left = WINDOW_MS - (performance.now() - t0)) {
    sample();
    await Bun.sleep(Math.min(1000, left));
  }
  const wallMs = performance.now() - t0;
  const cost = {} as Record<K, Cost>;
  names.forEach((k, i) => {
    cost[k] = { cpuMs: ((cpuTicks(pids[k]) - before[i]) * 1000) / CLK_TCK, rssKiB: rssKiB(pids[k]).total };
  });
  return { wallMs, cost };
}

/** The local sentinel's relay streams (ssh running `vx machine relay`), by their control socket under `home`. */
const relays = (home: string) => processTable().filter(([, cmd]) => /^\S*ssh .* 'machine' 'relay' /.test(cmd) && cmd.includes(join(home, ".vexillum", "ssh")));
/** The machine's side of a relay: the vx `machine add` installed under `home`. */
const machineRelays = (home: string) => processTable().filter(([, cmd]) => cmd.startsWith(`${join(home, ".local", "bin", "vx")} machine relay `));

function onePid(found: [number, string][], what: string): number {
  if (found.length === 0) throw new Error(`no ${what} found`);
  return found[0][0];
}

function sentinelPid(home: string): number {
  const pid = Number(readFileSync(join(home, ".vexillum", "sentinel.pid"), "utf8").trim());
  if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("sentinel")) throw new Error(`pid ${pid} is not a sentinel`);
  return pid;
}

type Dispatched = { id: string; ms: number };

async function measure(local: Sandbox, remote: Sandbox, sshd: Sshd, env: Record<string, string>) {
  const run = async (args: string[]) => {
    const r = await vx(args, { cwd: local.project, env });
    if (r.code !== 0) throw new Error(`vx ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return r;
  };
  await run(["init", "--yes", "--backend", "tmux", "--harness", "claude"]);
  await run(["machine", "add", "box", sshd.destination]);
  const wakes = join(local.home, ".vexillum", "projects", projectKey(local.project), "wakes");
  const dispatch = async (where: string[], prompt: string): Promise<Dispatched> => {
    const t0 = performance.now();
    const r = await run(["dispatch", ...where, prompt]);
    const ms = performance.now() - t0;
    const id = /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1];
    if (!id) throw new Error(`vx dispatch ${where.join(" ")} printed no task id: ${r.stdout}`);
    return { id, ms };
  };
  // Lets a soldier finish (its go-file in `home`); the ms from its wake's detected_at to the wake file in the local queue.
  const finish = async (id: string, home: string): Promise<number> => {
    const path = join(wakes, `${id}.json`);
    if (existsSync(path)) throw new Error(`a wake for ${id} before it finished: ${readFileSync(path, "utf8")}`);
    writeFileSync(join(home, `go-${id}`), "");
    const seen = await when(() => existsSync(path), 60_000, `the wake of ${id}`);
    const wake = JSON.parse(readFileSync(path, "utf8"));
    if (wake.new_status !== "done") throw new Error(`the wake of ${id} says ${wake.new_status}`);
    return seen - Date.parse(wake.detected_at);
  };
  const TMUX = ["--backend", "tmux"];
  const ON = ["--on", "box"];

  // The baseline of 3: the sentinel a plain local dispatch started, idle once that soldier finished.
  await finish((await dispatch(TMUX, "warm up here")).id, local.home);
  const idleBefore = await idleCost({ sentinel: sentinelPid(local.home) });
  // The first --on makes the clone there and starts the machine's sentinel and the relay: timed apart from 4.
  const firstOn = await dispatch(ON, "warm up there");
  await finish(firstOn.id, remote.home);

  const here: Dispatched[] = [];
  const there: Dispatched[] = [];
  for (let i = 0; i < n; i++) {
    here.push(await dispatch(TMUX, `local soldier ${i}`));
    there.push(await dispatch(ON, `remote soldier ${i}`));
  }
  const floor: number[] = [];
  for (const d of here) floor.push(await finish(d.id, local.home));

  // Only the N remote soldiers in flight now, nothing changing: how many relay streams, and what they cost at rest.
  const counts: number[] = [];
  const pids = { sentinel: sentinelPid(local.home), ssh: onePid(relays(local.home), "local relay ssh"), relay: onePid(machineRelays(remote.home), "machine-side vx machine relay") };
  const inFlight = await idleCost(pids, () => counts.push(relays(local.home).length));
  const sameSentinel = pids.sentinel === sentinelPid(local.home);

  const relayed: number[] = [];
  for (const d of there) relayed.push(await finish(d.id, remote.home));
  return { floor, relayed, counts, idleBefore, inFlight, sameSentinel, firstOn: firstOn.ms, here: here.map((d) => d.ms), there: there.map((d) => d.ms) };
}

function report(f: Awaited<ReturnType<typeof measure>>): void {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const cost = (c: Cost) => `CPU ${c.cpuMs.toFixed(0)} ms, RSS ${(c.rssKiB / 1024).toFixed(1)} MiB`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "n/a (baseline 0)");
  console.log(
    `vx remote relay: machine "box" = a second HOME behind sshd on 127.0.0.1; N=${n}; VX_TIME_SCALE=${scale} on both sides (relay looks every ${at("relayPoll")} ms, sentinel every ${at("sentinelPoll")} ms)`,
  );
  const relayedMed = median(f.relayed);
  const floorMed = median(f.floor);
  console.log(`1. wake latency, detected_at -> wake file in the local queue (polled every 10 ms), ${n} soldiers each:`);
  console.log(`   --on box (relayed over ssh):   median ${ms(relayedMed)}, max ${ms(Math.max(...f.relayed))} (goal <= 2000 ms)`);
  console.log(`   local tmux (floor, baseline):  median ${ms(floorMed)}, max ${ms(Math.max(...f.floor))}`);
  console.log(`   relayed - floor: ${ms(relayedMed - floorMed)} (median); relayed / floor: ${ratio(relayedMed, floorMed)}`);
  console.log(`2. relay ssh processes with ${n} soldiers in flight: ${Math.max(...f.counts)} (max of ${f.counts.length} samples, min ${Math.min(...f.counts)}; expected 1)`);
  const c = f.inFlight.cost;
  console.log(`3. idle cost over ${(f.inFlight.wallMs / 1000).toFixed(1)} s with ${n} soldiers in flight, nothing changing:`);
  console.log(`   local sentinel:                ${cost(c.sentinel)}`);
  console.log(`   local ssh (relay stream):      ${cost(c.ssh)}`);
  console.log(`   machine's vx machine relay:    ${cost(c.relay)}`);
  const base = f.idleBefore.cost.sentinel;
  console.log(`   baseline, the same sentinel idle over ${(f.idleBefore.wallMs / 1000).toFixed(1)} s before any dispatch --on: ${cost(base)}`);
  console.log(`   local sentinel CPU, in flight / idle: ${ratio(c.sentinel.cpuMs, base.cpuMs)}${f.sameSentinel ? "" : " (the sentinel was replaced during the window)"}`);
  const sec = (x: number) => `${(x / 1000).toFixed(2)} s`;
  console.log(`4. vx dispatch wall time, ${n} each, interleaved (VX_TIME_SCALE=${scale} on both sides; both wait out the quick-settle probe's ${at("quickSettle") / 1000} s for a working soldier):`);
  console.log(`   --backend tmux (baseline):     median ${sec(median(f.here))}, max ${sec(Math.max(...f.here))}`);
  console.log(`   --on box:                      median ${sec(median(f.there))}, max ${sec(Math.max(...f.there))}`);
  // The probe's window is most of a local dispatch, so the difference says more than the ratio at another time scale.
  console.log(
    `   --on / local: ${ratio(median(f.there), median(f.here))}, --on - local: ${sec(median(f.there) - median(f.here))}; the first --on (clone made there, the machine's sentinel started), not counted: ${sec(f.firstOn)}`,
  );
}

/** Runs every step even when one before it failed, so no sentinel, tmux server, sshd or temp dir is left behind. */
async function cleanup(steps: (() => unknown)[]): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (e) {
      console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
    }
  }
}

const killTmux = (sb: Sandbox) => Bun.spawnSync(["tmux", "kill-server"], { env: { ...sb.env, TMUX_TMPDIR: sb.home }, stdout: "ignore", stderr: "ignore" });

let local: Sandbox | undefined;
let remote: Sandbox | undefined;
let sshd: Sshd | undefined;
let tearing: Promise<void> | undefined;
/** Once, whoever asks first (the end of the run or a signal): the other waits for the same teardown. */
const teardown = () =>
  (tearing ??= cleanup([
    () => local && stopSentinels(local.home),
    () => remote && stopSentinels(remote.home),
    () => local && killTmux(local),
    () => remote && killTmux(remote),
    () => sshd?.stop(),
    () => local?.[Symbol.dispose](),
    () => remote?.[Symbol.dispose](),
    () => rmSync(runDir, { recursive: true, force: true }),
  ]));
// A run stopped by ctrl-c cleans up too.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void teardown().then(() => process.exit(130)));

try {
  local = sandbox();
  remote = sandbox({ git: false });
  installSoldier(remote.bin, '"$HOME/.local/bin/vx"');
  // The local soldiers need `claude` on the local PATH too, and a vx to report with.
  installSoldier(local.bin, `'${VX_BIN}'`);
  // The machine's own tmux server and time scale; IS_SANDBOX lets a Claude soldier start as root.
  sshd = await startSshd({
    localHome: local.home,
    remoteHome: remote.home,
    remotePath: sandboxPath(remote.bin),
    remoteEnv: { TMUX_TMPDIR: remote.home, VX_TIME_SCALE: scale, IS_SANDBOX: "1" },
  });
  // A private tmux server here too (TMUX_TMPDIR), never the user's.
  const env = { ...local.env, PATH: `${sshd.binDir}:${local.env.PATH}`, VX_TIME_SCALE: scale, TMUX_TMPDIR: local.home };
  report(await measure(local, remote, sshd, env));
} finally {
  await teardown();
}

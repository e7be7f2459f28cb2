// AWT-08's verified signalling across state roots: an await started under another HOME reads
// `vx sentinel await` like ours, so a record in our registry naming its pid must not get it
// stopped; our own stale awaits are still reaped.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, waitFor } from "../helpers";
import { type Queue, alive, queue, stopSentinel } from "../await-kit";
import { execed } from "../exec-wait";

let queues: Queue[] = [];
let procs: ReturnType<typeof Bun.spawn>[] = [];
afterEach(async () => {
  for (const p of procs) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
  for (const q of queues) await stopSentinel(q.root);
  for (const q of queues) q[Symbol.dispose]();
  queues = [];
  procs = [];
});

async function world(): Promise<Queue> {
  const q = await queue({ VX_TIME_SCALE: "0.02" });
  queues.push(q);
  return q;
}

/** A real `vx sentinel await` in `q`'s project and HOME; this test process is its owner. */
function startAwait(q: Queue) {
  const p = Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: q.project, env: q.env, stdout: "pipe", stderr: "pipe" });
  procs.push(p);
  return p;
}

const recordFile = (q: Queue, pid: number) => join(q.root, "sentinel-awaiters", `${pid}.json`);
const registered = (q: Queue, pid: number) => existsSync(recordFile(q, pid));

describe("reaping verifies the state root", () => {
  test("another HOME's await named by a record in our registry is left running; the record goes", async () => {
    const ours = await world();
    const theirs = await world();
    const foreign = startAwait(theirs);
    await waitFor(() => registered(theirs, foreign.pid), 10_000, "the other HOME's await to register");
    // A record as our own older await of this owner and project would have left it: superseded.
    const crafted = recordFile(ours, foreign.pid);
    mkdirSync(join(ours.root, "sentinel-awaiters"), { recursive: true });
    writeFileSync(
      crafted,
      JSON.stringify({
        pid: foreign.pid,
        owner_pid: process.pid,
        project_path: ours.project,
        project_key: "x",
        started_at: "2026-01-01T00:00:00.000Z",
      }),
    );

    const mine = startAwait(ours);
    await waitFor(() => !existsSync(crafted) || !alive(foreign.pid), 10_000, "our await's reaping");
    expect(alive(foreign.pid)).toBe(true);
    expect(registered(theirs, foreign.pid)).toBe(true);
    expect(alive(mine.pid)).toBe(true);
    expect(readdirSync(join(ours.root, "sentinel-awaiters"))).toEqual([`${mine.pid}.json`]);
  });

  test("our own older await of the same owner and project is still stopped", async () => {
    const ours = await world();
    const older = startAwait(ours);
    await waitFor(() => registered(ours, older.pid), 10_000, "the first await to register");
    const newer = startAwait(ours);
    expect(await older.exited).toBe(0);
    await waitFor(() => !registered(ours, older.pid) && registered(ours, newer.pid), 10_000, "only the newer record");
    expect(alive(newer.pid)).toBe(true);
  });
});

describe("reaping verifies the executable", () => {
  test("processes with a forged await command line and our environment are never signalled", async () => {
    const ours = await world();
    // The argv of an await only by its words: argv[0] is the whole string "vx sentinel await".
    const words = Bun.spawn(["bash", "-c", 'exec -a "vx sentinel await" sleep 1000'], { env: ours.env, stdout: "ignore", stderr: "ignore" });
    // The exact argv of an await, ["vx", "sentinel", "await"], run by bash (its script
    // `sentinel` blocks on a FIFO): only the executable tells it from vx.
    const dir = join(ours.home, "forger");
    mkdirSync(dir);
    expect(Bun.spawnSync(["mkfifo", join(dir, "fifo")]).exitCode).toBe(0);
    writeFileSync(join(dir, "sentinel"), "read -r _ <> fifo\n");
    const exact = Bun.spawn(["bash", "sentinel", "await"], { argv0: "vx", cwd: dir, env: ours.env, stdout: "ignore", stderr: "ignore" });
    procs.push(words, exact);
    await execed(words.pid, "sleep");
    await execed(exact.pid, "bash");
    // Records as our own older awaits of this owner and project would have left: superseded.
    mkdirSync(join(ours.root, "sentinel-awaiters"), { recursive: true });
    for (const pid of [words.pid, exact.pid]) {
      writeFileSync(
        recordFile(ours, pid),
        JSON.stringify({
          pid,
          owner_pid: process.pid,
          project_path: ours.project,
          project_key: "x",
          started_at: "2026-01-01T00:00:00.000Z",
        }),
      );
    }

    const mine = startAwait(ours);
    const settled = (pid: number) => !registered(ours, pid) || !alive(pid);
    await waitFor(() => registered(ours, mine.pid) && settled(words.pid) && settled(exact.pid), 10_000, "our await's reaping");
    expect(alive(words.pid)).toBe(true);
    expect(alive(exact.pid)).toBe(true);
    expect(alive(mine.pid)).toBe(true);
    expect(readdirSync(join(ours.root, "sentinel-awaiters"))).toEqual([`${mine.pid}.json`]);
  });
});

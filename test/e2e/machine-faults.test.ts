// MCH-08's promise under faults, over a real sshd: each wake of a soldier on the machine arrives here once, whatever
// dies or stops on the way. Each fault runs CYCLES times; every cycle's wake must arrive (none lost), be deleted
// there only after it was committed here, and its mirror name it (a copy sent again is never written: none duplicated).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { alive, sandbox, stopSentinels, vx, waitFor } from "../helpers";
import { type MachineField, signal, useMachineField } from "./machine-field";

const CYCLES = 2;

let f: MachineField;
useMachineField((made) => {
  f = made;
});

/** One cycle: a soldier dispatched there, `fault` while it works or finishes, its wake here once; delivered (deleted) here after. */
async function cycle(fault: (id: string) => Promise<void>, status = "done"): Promise<void> {
  const id = await f.dispatchOn("survive this");
  await waitFor(() => f.relays().length === 1, 20_000, "the relay up").catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(f.relays())}`);
  });
  await fault(id);
  await f.relayedOnce(id, status);
  rmSync(f.localWake(id));
}

async function cycles(name: string, fault: (id: string) => Promise<void>, status?: string): Promise<void> {
  for (let i = 0; i < CYCLES; i++) await cycle(fault, status);
  console.log(`machine fault "${name}": ${CYCLES} cycles, 0 lost, 0 duplicated`);
}

describe("a machine's wakes under faults (MCH-08)", () => {
  test(
    "the ssh connection (its control master) killed -9 as the soldier finishes: reconnected, the wake comes once",
    () =>
      cycles("the ssh connection killed mid-delivery", async (id) => {
        f.go(id);
        signal(f.master());
      }),
    180_000,
  );

  test(
    "the machine's relay process killed -9: a new one, the wake comes once",
    () =>
      cycles("the machine's relay killed", async (id) => {
        f.go(id);
        signal(f.servers()[0]?.[0]);
      }),
    180_000,
  );

  test(
    "the machine's sentinel killed -9 while the soldier works: the relay starts it again, the wake comes once",
    () =>
      cycles("the machine's sentinel killed", async (id) => {
        const pid = f.sentinelPid(f.remote.home);
        signal(pid);
        await waitFor(() => !alive(pid), 10_000, "the machine's sentinel gone");
        f.go(id);
      }),
    180_000,
  );

  test(
    "the machine rebooted (its tmux server and sentinel killed -9): the soldier is interrupted there, and that wake comes once",
    () =>
      cycles(
        "the machine rebooted",
        async () => {
          const pid = f.sentinelPid(f.remote.home);
          f.killMachineTmux();
          signal(pid);
          await waitFor(() => !alive(pid), 10_000, "the machine's sentinel gone");
        },
        "interrupted",
      ),
    180_000,
  );

  test("the machine's state root replaced (wiped in a reinstall): each task in flight there is interrupted here, with a wake, once", async () => {
    for (let i = 0; i < CYCLES; i++) {
      const id = await f.dispatchOn("lost with the machine's state");
      const pid = f.sentinelPid(f.remote.home);
      f.killMachineTmux();
      signal(pid);
      await waitFor(() => !alive(pid), 10_000, "the machine's sentinel gone");
      rmSync(join(f.remote.home, ".vexillum"), { recursive: true, force: true });
      mkdirSync(join(f.remote.home, ".vexillum"), { mode: 0o700 });
      await waitFor(() => existsSync(f.localWake(id)), 60_000, "the interrupted wake here");
      expect(f.readJson(f.localWake(id))).toMatchObject({ task_id: id, new_status: "interrupted", note: expect.stringContaining("machine box no longer has this task") });
      expect(f.mirror(id)).toMatchObject({ status: "interrupted" });
      rmSync(f.localWake(id));
      // The machine's vx and the clone are still there: the next dispatch sets its state up again.
    }
    console.log(`machine fault "the machine's state root replaced": ${CYCLES} cycles, 0 lost, 0 duplicated`);
  }, 180_000);

  test("the dispatch --on gone before it wrote the mirror here (the file removed): the relay adopts the task, its wake comes once", async () => {
    for (let i = 0; i < CYCLES; i++) {
      const id = await f.dispatchOn("adopt me");
      const mirror = join(f.localDir(), "tasks", `${id}.json`);
      const remoteProject = f.mirror(id).remote_project;
      rmSync(mirror);
      f.go(id);
      await f.relayedOnce(id);
      expect(f.mirror(id)).toMatchObject({ id, machine: "box", remote_project: remoteProject, prompt: "adopt me", status: "done" });
      rmSync(f.localWake(id));
    }
    console.log(`machine fault "the dispatch gone before its mirror": ${CYCLES} cycles, 0 lost, 0 duplicated`);
  }, 180_000);

  test("two commanders' machines share one machine: each gets its own soldiers' wakes, only", async () => {
    using other = sandbox({ name: "other" });
    f.sshd.addClient(other.home);
    const env = { ...other.env, PATH: f.env.PATH, VX_TIME_SCALE: "0.1" };
    try {
      expect((await vx(["init", "--yes", "--backend", "tmux", "--harness", "claude"], { cwd: other.project, env })).code).toBe(0);
      expect((await vx(["machine", "add", "box", f.sshd.destination], { cwd: other.project, env })).code).toBe(0);
      const r = await vx(["dispatch", "--on", "box", "the other's work"], { cwd: other.project, env });
      expect(r.code).toBe(0);
      const theirs = /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1] as string;
      const ours = await f.dispatchOn("ours");
      f.go(theirs);
      f.go(ours);
      await f.relayedOnce(ours);
      const otherWake = join(other.home, ".vexillum", "projects");
      const theirWake = join(otherWake, readdirSync(otherWake).find((n) => n.startsWith("other-")) ?? "-", "wakes", `${theirs}.json`);
      await waitFor(() => existsSync(theirWake), 60_000, "their wake, at theirs");
      expect(existsSync(f.localWake(theirs))).toBe(false);
      rmSync(f.localWake(ours));
    } finally {
      await stopSentinels(other.home);
    }
  }, 180_000);
});

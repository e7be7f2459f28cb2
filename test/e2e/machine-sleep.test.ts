// MCH-08 with the link stopped as a sleeping laptop's is: the ssh connection (its control master) SIGSTOPped for 10
// scaled minutes while the soldier there finishes; its wake waits there all that time, then comes once. Its own file,
// at VX_TIME_SCALE 0.03: 18 s of wall time runs beside the other tests.
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { waitFor } from "../helpers";
import { type MachineField, signal, useMachineField } from "./machine-field";

let f: MachineField;
useMachineField((made) => {
  f = made;
}, "0.03");

async function cycle(fault: (id: string) => Promise<void>): Promise<void> {
  const id = await f.dispatchOn("sleep through this");
  await waitFor(() => f.relays().length === 1, 20_000, "the relay up");
  await fault(id);
  await f.relayedOnce(id);
  rmSync(f.localWake(id));
}

describe("a machine's wakes across a stopped link (MCH-08)", () => {
  test("the link stopped (SIGSTOP of the ssh connection) for 10 scaled minutes, the wake written there meanwhile, then resumed: the wake comes once", async () => {
    // 10 minutes at this field's VX_TIME_SCALE (0.03): 18 s of wall time, so one cycle.
    const stopMs = 10 * 60_000 * Number(f.env.VX_TIME_SCALE);
    await cycle(async (id) => {
      const pid = f.master();
      signal(pid, "SIGSTOP");
      const stoppedAt = Date.now();
      try {
        f.go(id);
        await waitFor(() => existsSync(f.remoteWake(id)), 60_000, "the wake written there");
        await waitFor(() => Date.now() - stoppedAt >= stopMs, stopMs + 10_000, "the link stopped for 10 scaled minutes");
        expect(existsSync(f.localWake(id))).toBe(false);
      } finally {
        signal(pid, "SIGCONT");
      }
    });
    console.log(`machine fault "the link stopped for ${stopMs / 1000} s (10 scaled minutes)": 1 cycle, 0 lost, 0 duplicated`);
  }, 180_000);
});

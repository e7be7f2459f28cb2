// The sentinel delivering to a Codex commander (CMDR-09) as a process: a wake written between
// passes reaches `codex queue` through the queue watch, without waiting out the poll interval.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { queue, stopSentinel, taskWithWake } from "../await-kit";
import { installFakeCodex } from "../fakes/codex";
import { addAgent, createWorkspace, installFakeHerdr } from "../fakes/herdr-control";
import { VX_BIN, waitFor } from "../helpers";

test("a wake for a live Codex commander is queued into its thread within the poll, not after it", async () => {
  // A 500 s poll: only the watch of the queue can deliver within the wait below.
  const q = await queue({ VX_TIME_SCALE: "100" });
  try {
    const herdr = installFakeHerdr(q.bin, { stateDir: join(q.home, "..", "herdr") });
    Object.assign(q.env, herdr);
    const ws = createWorkspace(herdr, { cwd: q.project });
    addAgent(herdr, ws.pane_id, { kind: "codex", status: "idle" });
    const codex = installFakeCodex(q.bin);
    const entry = { herdr_pane_id: ws.pane_id, project_path: q.project, registered_at: "2026-11-30T10:00:00.000Z", codex_thread_id: "thread-1" };
    writeFileSync(join(q.stateDir, "commanders.json"), JSON.stringify({ schema_version: 1, commanders: { codex: entry } }));
    // The first wake goes out with the first pass; the second comes while the sentinel waits.
    taskWithWake(q, "e4e4e4e4e4e4e4e4");
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: q.home, env: q.env, stdout: "ignore", stderr: "ignore" });
    await waitFor(() => codex.calls().length === 1, 20_000, "the first pass's codex queue");
    taskWithWake(q, "e5e5e5e5e5e5e5e5");
    await waitFor(() => codex.calls().length === 2, 20_000, "codex queue for the wake written between passes");
    const call = codex.calls()[1];
    expect(call!.argv.slice(0, 4)).toEqual(["queue", "--thread", "thread-1", "--message"]);
    expect(call!.argv[4]).toContain("mission e5e5e5e5e5e5e5e5: running -> done");
    sentinel.kill("SIGTERM");
    await sentinel.exited;
  } finally {
    await stopSentinel(q.root);
    q[Symbol.dispose]();
  }
});

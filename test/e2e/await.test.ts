// `vx sentinel await` as the Stop hook runs it (AWT-03..11): compiled binary, real processes.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, vx, waitFor } from "../helpers";
import { type Queue, alive, queue, reasonFor, stopSentinel, taskWithWake } from "../await-kit";
import { REARM_TEXT } from "../../src/awaiters/rearm";

const ID = "2222222222222222";
let current: Queue | undefined;
afterEach(async () => {
  if (current) await stopSentinel(current.root);
  current?.[Symbol.dispose]();
  current = undefined;
});

function startAwait(q: Queue, env: Record<string, string> = {}) {
  return Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: q.project, env: { ...q.env, ...env }, stdout: "pipe", stderr: "pipe" });
}
const records = (q: Queue) => {
  try {
    return readdirSync(join(q.root, "sentinel-awaiters"));
  } catch {
    return [];
  }
};

describe("vx sentinel await", () => {
  test("registers, then exits 2 with the reason on stderr when a wake is written; stdout stays empty", async () => {
    current = await queue();
    const q = current;
    const p = startAwait(q, { HERDR_PANE_ID: "w1:p1" });
    await waitFor(() => records(q).includes(`${p.pid}.json`), 5000, "the awaiter record");
    const rec = JSON.parse(readFileSync(join(q.root, "sentinel-awaiters", `${p.pid}.json`), "utf8"));
    expect(rec).toMatchObject({ pid: p.pid, owner_pid: process.pid, project_path: q.project, herdr_pane_id: "w1:p1" });
    taskWithWake(q, ID);
    expect(await p.exited).toBe(2);
    expect(await new Response(p.stderr).text()).toBe(reasonFor(ID));
    expect(await new Response(p.stdout).text()).toBe("");
    expect(records(q)).toEqual([]);
    expect(readdirSync(q.wakes).filter((n) => n.endsWith(".json") || n.includes(".claimed-"))).toEqual([]);
    await waitFor(() => existsSync(join(q.root, "sentinel.pid")), 5000, "the auto-started sentinel");
  });

  test("SIGTERM: exits 0, unregisters, consumes nothing", async () => {
    current = await queue();
    const q = current;
    const p = startAwait(q);
    await waitFor(() => records(q).length === 1, 5000, "registration");
    p.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(records(q)).toEqual([]);
    expect(await new Response(p.stderr).text()).toBe("");
  });

  test("its owner dies: it exits 0 and the wake stays for the next hook", async () => {
    current = await queue();
    const q = current;
    const parent = Bun.spawn(["bun", join(import.meta.dir, "../fixtures/parent.ts"), VX_BIN, q.project], { env: q.env, stdout: "pipe", stderr: "inherit" });
    const reader = parent.stdout.getReader();
    const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
    await waitFor(() => records(q).includes(`${pid}.json`), 5000, "registration");
    parent.kill("SIGKILL");
    await waitFor(() => !alive(pid), 5000, "the orphaned await to exit");
    expect(records(q)).toEqual([]);
    const wake = taskWithWake(q, ID);
    expect(existsSync(wake)).toBe(true);
  });

  test("a second await of the same owner and project stops the older one", async () => {
    current = await queue();
    const q = current;
    const older = startAwait(q);
    await waitFor(() => records(q).length === 1, 5000, "first registration");
    const newer = startAwait(q);
    expect(await older.exited).toBe(0);
    await waitFor(() => records(q).length === 1 && records(q)[0] === `${newer.pid}.json`, 5000, "only the newer record");
    newer.kill("SIGTERM");
    expect(await newer.exited).toBe(0);
  });

  test("an owner that restarts its await: a quiet end after a day (scaled), exit 0, no output", async () => {
    current = await queue({ VX_TIME_SCALE: "0.00001" });
    const q = current;
    const t0 = performance.now();
    const p = startAwait(q);
    await waitFor(() => records(q).includes(`${p.pid}.json`) || p.exitCode !== null, 5000, "registration");
    expect(records(q)).toContain(`${p.pid}.json`);
    expect(await p.exited).toBe(0);
    // It listened the scaled day (864 ms), not seed 000's 55 minutes (33 ms).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(864);
    expect(await new Response(p.stderr).text()).toBe("");
    expect(records(q)).toEqual([]);
  });

  test("a Claude Code owner: after a day (scaled) one re-arm text and exit 2, nothing consumed (AWT-12)", async () => {
    current = await queue({ VX_TIME_SCALE: "0.00001" });
    const q = current;
    // The owner's command line reads as Claude Code's (`claude ...`); the await is its child.
    const owner = Bun.spawn(["bash", "-c", 'exec -a claude bash -c "\\"\\$0\\" sentinel await; echo \\"rc=\\$?\\"" "$0"', VX_BIN], {
      cwd: q.project,
      env: q.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const t0 = performance.now();
    expect(await owner.exited).toBe(0);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(864);
    const [out, err] = [await new Response(owner.stdout).text(), await new Response(owner.stderr).text()];
    expect({ out, err }).toEqual({ out: "rc=2\n", err: `${REARM_TEXT}\n` });
    expect(records(q)).toEqual([]);
  });

  test.each([
    ["HERDR_WORKSPACE_ID unset", { HERDR_WORKSPACE_ID: "" }],
    ["HOME unset", { HOME: "" }],
  ])("no-op when %s: exit 0 at once, nothing registered or claimed", async (_w, env) => {
    current = await queue();
    const wake = taskWithWake(current, ID);
    const p = startAwait(current, env);
    expect(await p.exited).toBe(0);
    expect(await new Response(p.stderr).text()).toBe("");
    expect(existsSync(wake)).toBe(true);
    expect(records(current)).toEqual([]);
  });

  test("with stderr closed (2>&-) it exits 0 at once and consumes no wake", async () => {
    current = await queue();
    const wake = taskWithWake(current, ID);
    const p = Bun.spawn(["sh", "-c", 'exec "$0" sentinel await 2>&-', VX_BIN], { cwd: current.project, env: current.env, stdout: "pipe", stderr: "pipe" });
    expect(await p.exited).toBe(0);
    expect(existsSync(wake)).toBe(true);
    expect(records(current)).toEqual([]);
  });

  test("an internal error ends it with exit 0 and a line in sentinel.log", async () => {
    current = await queue();
    rmSync(join(current.root, "sentinel-awaiters"), { recursive: true, force: true });
    writeFileSync(join(current.root, "sentinel-awaiters"), "not a directory");
    const p = startAwait(current);
    expect(await p.exited).toBe(0);
    expect(await new Response(p.stderr).text()).toBe("");
    expect(readFileSync(join(current.root, "sentinel.log"), "utf8")).toMatch(/Z await: .+/);
  });

  test("usage errors are 64", async () => {
    current = await queue();
    const r = await vx(["sentinel", "await", "--now"], { cwd: current.project, env: current.env });
    expect(r.code).toBe(64);
  });
});

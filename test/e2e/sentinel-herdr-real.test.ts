// The sentinel against the real herdr 0.8.2 (issue 24): its log says when herdr is back after an
// outage (SEN-05), and a sentinel first started from a shell whose PATH has no herdr does not keep
// that PATH for life: the next command from a PATH that has it starts a successor, and the old
// one retires (SEN-23). The soldier is a pane that reports itself as a working Claude Code.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type RealHerdr, startRealHerdr } from "../herdr-real";
import { initProject } from "../init-project";
import { type Sandbox, sandbox, stopSentinels, taskFixture, vx, waitFor, writeTaskFile } from "../helpers";

let s: Sandbox | undefined;
let h: RealHerdr | undefined;
afterEach(async () => {
  if (s) await stopSentinels(s.home);
  await h?.stop();
  s?.[Symbol.dispose]();
  s = h = undefined;
});

const ID = "5e5e5e5e5e5e5e5e";

/**
 * A project whose commander runs in a real herdr pane, and a running task whose soldier's pane
 * reports a working Claude Code (`working`), or holds no agent at all.
 */
async function herdrProject(scale: string, working: boolean) {
  s = sandbox();
  h = await startRealHerdr();
  const ws = h.workspace(s.project, "commander");
  Object.assign(s.env, h.paneEnv(ws), { PATH: `${h.binDir}:${s.env.PATH}`, VX_TIME_SCALE: scale });
  await initProject(s.project, s.env);
  const tab = h.json<{ root_pane: { pane_id: string; tab_id: string } }>(["tab", "create", "--workspace", ws.workspace, "--cwd", s.project, "--no-focus"]);
  const pane = tab.root_pane.pane_id;
  // Prints nothing on success.
  if (working) expect(h.run(["pane", "report-agent", pane, "--source", "vx-test", "--agent", "claude", "--state", "working"]).code).toBe(0);
  writeTaskFile(
    s.home,
    s.project,
    taskFixture({
      id: ID,
      status: "running",
      backend: "herdr",
      harness: "claude",
      herdr_workspace_id: ws.workspace,
      herdr_tab_id: tab.root_pane.tab_id,
      herdr_pane_id: pane,
      updated_at: new Date().toISOString(),
    }),
  );
  return { s, h, log: join(s.home, ".vexillum", "sentinel.log") };
}

const logText = (log: string) => (existsSync(log) ? readFileSync(log, "utf8") : "");
const logShows = (log: string, text: string, what: string) =>
  waitFor(() => logText(log).includes(text), 30_000, what).catch((err) => {
    throw new Error(`${(err as Error).message}\n--- sentinel.log ---\n${logText(log)}`);
  });

test("after a herdr outage the sentinel's log says herdr is available again", async () => {
  const { s, h, log } = await herdrProject("0.2", true);
  // `vx wait` on a running task starts the sentinel, as any command does (SEN-23).
  const w = await vx(["wait", ID, "--max-wait", "1"], { cwd: s.project, env: s.env });
  expect(w.stderr).toContain("auto-started sentinel");
  await logShows(log, "sentinel: polling", "the sentinel to poll");
  await h.halt();
  await logShows(log, "sentinel: herdr unavailable:", "the outage in the log");
  await h.restart();
  await logShows(log, "sentinel: herdr available again", "herdr back in the log");
  // Said once, after the outage only.
  expect(logText(log).split("sentinel: herdr available again").length - 1).toBe(1);
});

test("a sentinel started from a PATH without herdr gives way to one started from a PATH with it", async () => {
  const { s, log } = await herdrProject("0.2", false);
  // A commander pane whose PATH lost herdr: its command starts the sentinel with that PATH.
  const bad = { ...s.env, PATH: s.env.PATH!.split(":").slice(1).join(":") };
  const first = await vx(["wait", ID, "--max-wait", "1"], { cwd: s.project, env: bad });
  expect(first.stderr).toContain("auto-started sentinel");
  await logShows(log, "sentinel: herdr unavailable: herdr not found in PATH", "the first sentinel's missing herdr");
  const firstPid = Number(readFileSync(join(s.home, ".vexillum", "sentinel.pid"), "utf8"));
  // The next command from a PATH with herdr: a successor starts, and the first one retires.
  const next = await vx(["wait", ID, "--max-wait", "1"], { cwd: s.project, env: s.env });
  expect(next.stderr).toContain("auto-started sentinel");
  await logShows(log, "sentinel: retiring, a successor", "the first sentinel to retire");
  const info = await waitFor(
    () => {
      const i = JSON.parse(readFileSync(join(s.home, ".vexillum", "sentinel.json"), "utf8")) as { pid: number; path?: string };
      return i.pid !== firstPid ? i : undefined;
    },
    30_000,
    "the successor to hold the lock",
  ).catch(() => undefined);
  expect(info?.path).toBe(s.env.PATH);
  // The successor reaches herdr: the soldier's pane holds no agent, so the task is interrupted.
  const task = join(s.home, ".vexillum", "projects");
  await waitFor(() => logText(log).includes(`${ID}`) && logText(log).includes("-> interrupted"), 30_000, "the successor to settle the task").catch((err) => {
    throw new Error(`${(err as Error).message} (${task})\n--- sentinel.log ---\n${logText(log)}`);
  });
});

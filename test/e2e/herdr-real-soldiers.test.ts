// Soldiers on the real herdr 0.8.2 (issue 24): a scripted `claude` dispatched, finishing its
// mission; a closed pane and a lost server as the sentinel sees them. What a real server cannot be
// made to do on cue (a hang, a scripted error) stays on the fake (soldier-field.ts).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { git, waitFor } from "../helpers";
import { realField } from "./herdr-real-field";
import { taskIdOf } from "./soldier-field";

test.concurrent("a scripted claude soldier commits its mission within the probe: done, with its screen as output", async () => {
  await using f = await realField({ scale: "0.5" });
  const r = await f.run(["dispatch", "add a changelog"]);
  expect(r.stderr).not.toContain("error");
  expect(r.code).toBe(0);
  const t = f.task(taskIdOf(r.stdout));
  expect(r.stdout).toContain("\nstatus=done\n");
  // The output is the soldier's pane as herdr reads it, whole.
  const screen = f.h.run(["agent", "read", "vx-add-a-changelog", "--source", "recent-unwrapped", "--lines", "500"]).stdout;
  expect(screen).toContain("⏺ Added CHANGELOG.md and committed it.");
  expect(r.stdout).toEndWith(`\nstatus=done\nherdr: workspace=${f.ws.workspace} tab=${t.herdr_tab_id} pane=${t.herdr_pane_id} agent=vx-add-a-changelog\noutput:\n${screen}\n`);
  expect(t).toMatchObject({ status: "done", backend: "herdr", herdr_agent_name: "vx-add-a-changelog" });
  expect(git(t.camp_path as string, "log", "-1", "--format=%s").trim()).toBe("add a changelog");
}, 120_000);

test.concurrent("a soldier whose pane is closed becomes interrupted", async () => {
  await using f = await realField({ scale: "0.2" });
  const r = await f.run(["dispatch", "a slow refactor"]);
  expect(r.code).toBe(0);
  const id = taskIdOf(r.stdout);
  expect(f.task(id).status).toBe("running");
  const closed = f.h.run(["tab", "close", f.task(id).herdr_tab_id as string]);
  expect(closed.code).toBe(0);
  await waitFor(() => f.task(id).status === "interrupted", 60_000, "the task to become interrupted");
  expect(f.task(id).status).toBe("interrupted");
}, 120_000);

test.concurrent("a stopped server changes no task; after a restart the lost soldiers are interrupted, none done or failed", async () => {
  await using f = await realField({ scale: "0.2" });
  const ids: string[] = [];
  for (const mission of ["a slow migration", "a slow cleanup"]) {
    const r = await f.run(["dispatch", mission]);
    expect(r.code).toBe(0);
    ids.push(taskIdOf(r.stdout));
  }
  const log = join(f.home, ".vexillum", "sentinel.log");
  const logText = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
  await f.h.halt();
  // Passes go on while the server is down: it says so, and no task moves.
  await waitFor(() => /herdr unavailable/.test(logText()), 60_000, "the sentinel to find herdr down");
  // Longer than the not-found window (10 s, scaled to 2 s) and its passes: nothing may move meanwhile.
  const end = Date.now() + 4000;
  while (Date.now() < end) {
    expect(ids.map((id) => f.task(id).status)).toEqual(["running", "running"]);
    await Bun.sleep(100);
  }
  await f.h.restart();
  await waitFor(() => ids.every((id) => f.task(id).status !== "running"), 60_000, "the lost soldiers to be judged");
  expect(ids.map((id) => f.task(id).status)).toEqual(["interrupted", "interrupted"]);
}, 180_000);

test.concurrent("a done soldier prompted again settles done; landing it strikes its real tab", async () => {
  await using f = await realField({ scale: "0.5" });
  const d = await f.run(["dispatch", "add a changelog"]);
  expect(d.code).toBe(0);
  const id = taskIdOf(d.stdout);
  const tab = f.task(id).herdr_tab_id as string;
  const r = await f.run(["prompt", id, "now a readme"]);
  expect(r).toMatchObject({ code: 0, stdout: `status=done\nprompted task ${id}, now done\n` });
  expect(f.task(id).output).toContain("⏺ Done: now a readme");
  const landed = await f.run(["land", id]);
  expect(landed).toEqual({
    code: 0,
    stdout: `landed: fast-forwarded ${f.project} to vexillum/${id}\nstruck: camp returned to the pool, herdr pane closed.\n`,
    stderr: "",
  });
  expect(git(f.project, "log", "-1", "--format=%s", "main").trim()).toBe("add a changelog");
  const tabs = f.h.json<{ tabs: { tab_id: string }[] }>(["tab", "list", "--workspace", f.ws.workspace]).tabs.map((t) => t.tab_id);
  expect(tabs).not.toContain(tab);
  expect(tabs).toContain(f.ws.tab);
}, 180_000);

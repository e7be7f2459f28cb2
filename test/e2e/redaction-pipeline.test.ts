// Issue 9's end-to-end check: every secret of the corpus shown in soldiers' panes, then looked for
// everywhere vx writes or prints pane text: the task file, the wake, `vx status`, `--json`,
// `vx wait` and the sentinel log. None may survive. Issue 25 added held-out set C (invisible
// characters, JSON escapes, cookies) and `vx dispatch`, which prints the transcript it settled on.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TRAILER } from "../../src/lifecycle/evidence";
import { activeWaits, appendPaneText, setAgentStatus, setPaneText } from "../fakes/herdr-control";
import { SECRET_BLOCKS, SECRET_CASES } from "../fixtures/secret-corpus";
import { HELD_OUT_C } from "../fixtures/secret-heldout-c";
import { git, waitFor, VX_BIN } from "../helpers";
import { field, seedTask, taskIdOf } from "./soldier-field";

const SECRETS = [...SECRET_CASES.flatMap((c) => c.secrets), ...SECRET_BLOCKS.flatMap((b) => b.secrets), ...HELD_OUT_C.flatMap((c) => c.secrets)];
const PANE = [...SECRET_CASES.map((c) => c.line), ...SECRET_BLOCKS.map((b) => b.text), ...HELD_OUT_C.map((c) => c.text)].join("\n");

function survivors(where: string, text: string): string[] {
  return SECRETS.filter((s) => text.includes(s)).map((s) => `${where}: ${s}`);
}

describe("redaction end to end", () => {
  test(`${SECRET_CASES.length} lines and ${SECRET_BLOCKS.length} blocks of secrets in panes: none reaches a file or an output`, async () => {
    expect(SECRETS.length).toBeGreaterThanOrEqual(100);
    await using f = await field();
    // A mission that finished with the corpus on its screen, and one blocked on a question carrying secrets.
    const done = await seedTask(f, { status: "running", agentStatus: "idle" });
    git(done.task.camp_path!, "commit", "-q", "--allow-empty", "-m", "work");
    setPaneText(f.fh, done.name, `> fix it\n${PANE}\n${TRAILER}\n⏺ Done.\n`);
    const asked = await seedTask(f, { status: "running", agentStatus: "idle", prompt: "deploy the service" });
    const question = `needs-decision: deploy with ${SECRET_CASES[0]!.line} or ${SECRET_CASES[5]!.line}?`;
    setPaneText(f.fh, asked.name, `> deploy\n${PANE}\n${TRAILER}\n⏺ ${question}\n`);

    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdout: "pipe", stderr: "pipe" });
    let log = "";
    try {
      await waitFor(() => f.task(done.task.id).status === "done" && f.task(asked.task.id).status === "blocked", 60_000, "both settled");
      await waitFor(() => [done, asked].every((s) => existsSync(join(f.paths.wakesDir, `${s.task.id}.json`))), 30_000, "both wakes");
    } finally {
      sentinel.kill("SIGTERM");
      await sentinel.exited;
      log = await new Response(sentinel.stdout).text();
    }
    expect(f.task(asked.task.id).decision?.question).toContain("deploy with");

    const found: string[] = [];
    for (const name of readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json"))) {
      found.push(...survivors(`task ${name}`, readFileSync(join(f.paths.tasksDir, name), "utf8")));
    }
    for (const name of readdirSync(f.paths.wakesDir).filter((n) => n.endsWith(".json"))) {
      found.push(...survivors(`wake ${name}`, readFileSync(join(f.paths.wakesDir, name), "utf8")));
    }
    const status = await f.run(["status"]);
    const json = await f.run(["status", "--json"]);
    expect(status.code).toBe(0);
    found.push(...survivors("vx status", status.stdout), ...survivors("vx status --json", json.stdout));
    for (const s of [done, asked]) {
      const waited = await f.run(["wait", s.task.id, "--max-wait", "5"]);
      found.push(...survivors(`vx wait ${s.task.id}`, waited.stdout + waited.stderr));
    }
    found.push(...survivors("sentinel stdout", log));
    const logFile = join(f.home, ".vexillum", "sentinel.log");
    if (existsSync(logFile)) found.push(...survivors("sentinel.log", readFileSync(logFile, "utf8")));
    expect(found).toEqual([]);
  }, 120_000);

  test("vx dispatch prints the transcript it settled on, and stores it, with no secret in either", async () => {
    await using f = await field({ scale: "0.5" });
    const running = f.run(["dispatch", "rotate the keys"]);
    const name = "vx-rotate-the-keys";
    await waitFor(() => activeWaits(f.fh, name).length > 0, 10_000, "the prompt's wait");
    const [file] = readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json"));
    const camp = f.task(file.slice(0, -5)).camp_path as string;
    git(camp, "commit", "-q", "--allow-empty", "-m", "rotate the keys");
    appendPaneText(f.fh, name, `${PANE}\n⏺ Rotated them.\n`);
    setAgentStatus(f.fh, name, "done");
    const r = await running;
    expect(r.code).toBe(0);
    const id = taskIdOf(r.stdout);
    expect(r.stdout).toContain("\nstatus=done\n");
    expect(r.stdout).toContain("⏺ Rotated them.");
    const found = [...survivors("vx dispatch stdout", r.stdout), ...survivors("vx dispatch stderr", r.stderr)];
    found.push(...survivors(`task ${id}.json`, readFileSync(join(f.paths.tasksDir, `${id}.json`), "utf8")));
    expect(found).toEqual([]);
  }, 120_000);
});

import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { releaseLease } from "../../src/camps/pool";
import { recordCommander } from "../../src/commanders/resolve";
import { ensureSentinel } from "../../src/sentinel/ensure";
import { isLockHeld, tryLockExclusive } from "../../src/state/lock";
import { type ProjectPaths, projectPaths, rootPaths } from "../../src/state/paths";
import { createTask, listTasks, loadTask, taskPath, updateTask, withTaskOp } from "../../src/state/tasks";
import { collectWakes } from "../../src/wakes/deliver";
import { leasedIn, loadTaskIn } from "../../src/wakes/currency";
import { writeForumWake } from "../../src/wakes/queue";
import { testDeps } from "../deps";
import { taskFixture } from "../helpers";

const ID = "0123456789abcdef";
const REFUSED = "is a symbolic link, which vx refuses inside its state dir";
const WRITER = resolve(import.meta.dir, "..", "fixtures", "write-atomic.ts");

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "vx-links-"));
}

/** A state root with one project, and a directory outside it that links are planted to point into. */
function world(): { root: string; paths: ProjectPaths; outside: string } {
  const root = tmp();
  return { root, paths: projectPaths(root, "/p/app"), outside: tmp() };
}

function task(over: Record<string, unknown> = {}) {
  return taskFixture({ id: ID, prompt: "fix the bug", ...over });
}

/** Plants `link` -> `target`, making the link's directory first. */
function plant(link: string, target: string): void {
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(target, link);
}

describe("lock files are never opened through a planted link", () => {
  const cases: [string, (p: ProjectPaths) => string, (p: ProjectPaths) => Promise<unknown>][] = [
    ["tasks/.lock", (p) => p.tasksLock, (p) => createTask(p, task())],
    ["tasks/.<id>.op.lock", (p) => join(p.tasksDir, `.${ID}.op.lock`), (p) => withTaskOp(p, ID, async () => "ran")],
    [
      "camps/pool.lock",
      (p) => p.poolLock,
      (p) => {
        writeFileSync(p.poolFile, '{ "schema_version": 1, "slots": [] }\n');
        return releaseLease(p, ID);
      },
    ],
    [".commanders.lock", (p) => p.commandersLock, (p) => recordCommander(p.root, { pane: "w1-1", project: "/p/app", harness: "claude", entry: { herdr_pane_id: "w1-1" }, marksTasks: true }, 0)],
  ];
  test.each(cases)("%s: refused with the path named, nothing created where it points", async (_name, lockOf, run) => {
    const { paths, outside } = world();
    const lock = lockOf(paths);
    plant(lock, join(outside, "planted"));
    await expect(run(paths)).rejects.toThrow(`${lock}: ${REFUSED} - remove it`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("the sentinel lock: taking it and probing it both refuse", () => {
    const { root, outside } = world();
    const lock = rootPaths(root).sentinelLock;
    plant(lock, join(outside, "planted"));
    expect(() => tryLockExclusive(lock)).toThrow(REFUSED);
    expect(() => isLockHeld(lock)).toThrow(`${lock}: ${REFUSED}`);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("state files and directories that are links are refused", () => {
  test("a task file linked to a live file is neither read nor written through", async () => {
    const { paths, outside } = world();
    const target = join(outside, "task.json");
    const text = `${JSON.stringify(task(), null, 2)}\n`;
    writeFileSync(target, text);
    const file = taskPath(paths, ID);
    plant(file, target);
    expect(() => loadTask(paths, ID)).toThrow(`${file}: ${REFUSED}`);
    expect(() => listTasks(paths)).toThrow(REFUSED);
    await expect(updateTask(paths, ID, (t) => ({ ...t, status: "done" }))).rejects.toThrow(REFUSED);
    expect(readFileSync(target, "utf8")).toBe(text);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  test("a tasks directory that is a link: create and list refuse, nothing lands where it points", async () => {
    const { paths, outside } = world();
    plant(paths.tasksDir, outside);
    await expect(createTask(paths, task())).rejects.toThrow(`${paths.tasksDir}: ${REFUSED}`);
    expect(() => listTasks(paths)).toThrow(`${paths.tasksDir}: ${REFUSED}`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("a project state dir that is a link: refused before anything is made inside it", async () => {
    const { paths, outside } = world();
    plant(paths.stateDir, outside);
    await expect(createTask(paths, task())).rejects.toThrow(`${paths.stateDir}: ${REFUSED}`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("a wakes directory that is a link: a forum wake is refused, no forum/ made where it points", () => {
    const { paths, outside } = world();
    plant(paths.wakesDir, outside);
    expect(() => writeForumWake(paths, { session: "s1", file: "a.md", count: 1, ended: false, detectedAt: 0 })).toThrow(`${paths.wakesDir}: ${REFUSED}`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("the state root itself may be a link (a state root on another disk): tasks are made inside it", async () => {
    const real = tmp();
    const root = join(tmp(), "state");
    symlinkSync(real, root);
    const paths = projectPaths(root, "/p/app");
    await createTask(paths, task());
    expect(listTasks(paths).map((t) => t.value.id)).toEqual([ID]);
    expect(existsSync(join(real, "projects", paths.key, "tasks", `${ID}.json`))).toBe(true);
  });
});

describe("temporary files", () => {
  test("links planted at predictable temporary names are never opened: the writes land in the file itself", async () => {
    const dir = tmp();
    const outside = tmp();
    const file = join(dir, "task.json");
    const writer = Bun.spawn([process.execPath, WRITER, file, "3"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    // The old names were `.<base>.<pid>.<seq>.tmp`, seq counting from 1 in each process.
    for (let seq = 1; seq <= 20; seq++) symlinkSync(join(outside, `t${seq}`), join(dir, `.task.json.${writer.pid}.${seq}.tmp`));
    writer.stdin.end();
    expect(await writer.exited).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("v3\n");
    expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
  });
});

describe("logs and wakes", () => {
  test("a sentinel.log that is a link: the auto-start refuses it, nothing is created where it points", () => {
    const { root, outside } = world();
    const log = rootPaths(root).sentinelLog;
    plant(log, join(outside, "log"));
    const d = testDeps({ cwd: root, env: { HOME: dirname(root) } });
    const res = ensureSentinel(d, root, { quiet: true });
    expect(res.error).toBe(`${log}: ${REFUSED} - remove it (or put what it points to in its place)`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("a wake that is a link is consumed unread: its target is neither delivered nor touched", async () => {
    const { root, paths, outside } = world();
    await createTask(paths, task({ status: "done" }));
    const target = join(outside, "wake.json");
    const text = JSON.stringify({ task_id: ID, kind: "mission", old_status: "running", new_status: "done", detected_at: "2026-11-30T10:00:00.000Z" });
    writeFileSync(target, text);
    utimesSync(target, 1000, 1000);
    plant(join(paths.wakesDir, `${ID}.json`), target);
    const queue = { stateDir: paths.stateDir, wakesDir: paths.wakesDir, forumWakesDir: paths.forumWakesDir, forumInboxDir: paths.forumInboxDir };
    const got = await collectWakes(queue, {
      clock: { now: () => Date.now() },
      isLiveVx: () => false,
      currency: { root, loadTask: loadTaskIn, leased: leasedIn, isLanded: () => undefined },
    });
    expect(got.soldier).toEqual([]);
    expect(readdirSync(paths.wakesDir)).toEqual([]);
    expect(readFileSync(target, "utf8")).toBe(text);
    expect(statSync(target).mtimeMs).toBe(1_000_000);
  });
});

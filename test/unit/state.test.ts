import { describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { StateError, type VxError } from "../../src/errors";
import { assertTaskId, assertTaskRef, isTaskId, newTaskId } from "../../src/state/ids";
import { isLockHeld, tryLockExclusive, withLock } from "../../src/state/lock";
import { isUnder, projectKey, projectPaths, refuseInsideCamp, stateRoot } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { taskFixture } from "../helpers";
import { createTask, isLeaseAbandoned, isTaskBusy, listTasks, loadTask, resolveTaskRef, taskPath, updateTask, withTaskOp } from "../../src/state/tasks";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "vx-unit-"));
}

function task(id: string, over: Partial<Task> = {}): Task {
  return taskFixture({ id, prompt: "fix the bug", ...over });
}

describe("project key", () => {
  test.each([
    ["/home/u/src/app", "app-"],
    ["/tmp/x y", "x y-"],
  ])("%s", (path, prefix) => {
    const key = projectKey(path);
    expect(key.startsWith(prefix)).toBe(true);
    expect(key).toMatch(/-[0-9a-f]{8}$/);
    const hash = new Bun.CryptoHasher("sha256").update(path).digest("hex").slice(0, 8);
    expect(key).toBe(`${prefix}${hash}`);
  });
  test("different paths, different keys", () => {
    expect(projectKey("/a/app")).not.toBe(projectKey("/b/app"));
  });
});

describe("state root and camp refusal", () => {
  test("HOME unset or empty is an error", () => {
    expect(() => stateRoot({})).toThrow("HOME is not set - vx keeps its state in $HOME/.vexillum: set HOME and run it again");
    expect(() => stateRoot({ HOME: "" })).toThrow("HOME is not set - vx keeps its state in $HOME/.vexillum: set HOME and run it again");
    expect(stateRoot({ HOME: "/h" })).toBe("/h/.vexillum");
  });
  test("refuses under the state root, exact message", () => {
    const root = tmp();
    const camp = join(root, "projects", "k", "camps", "1", "repo");
    expect(() => refuseInsideCamp(camp, root)).toThrow(`running from inside ${camp}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again`);
    expect(() => refuseInsideCamp(`${root}-sibling`, root)).not.toThrow();
    expect(isUnder(root, root)).toBe(true);
  });
});

describe("task ids", () => {
  test.each(["../../x", "ABCDEF0123456789", "0123", "0123456789abcdef0", "0123456789abcdeg", ""])("rejects %p", (id) => {
    expect(() => assertTaskId(id)).toThrow(`invalid task id "${id}": expected 16 lowercase hex characters`);
    try {
      assertTaskId(id);
    } catch (err) {
      expect((err as VxError).exit).toBe(64);
    }
  });
  test("new ids are valid and distinct", () => {
    const ids = new Set(Array.from({ length: 100 }, newTaskId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isTaskId(id)).toBe(true);
  });
});

describe("a task named by a prefix of its id (TSK-02)", () => {
  test("a unique prefix names its task; a whole id is taken as it is", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    for (const id of ["0a1b2c3d4e5f6071", "0a1b99999999aaaa", "ffee000000000001"]) await createTask(paths, task(id));
    expect(resolveTaskRef(paths, "ffee")).toBe("ffee000000000001");
    expect(resolveTaskRef(paths, "0a1b2c3d")).toBe("0a1b2c3d4e5f6071");
    // A whole id is never looked up here: its missing file is the command's own refusal.
    expect(resolveTaskRef(paths, "1111111111111111")).toBe("1111111111111111");
  });
  test("several matches are a usage error naming them; none is 'no task'", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    for (const id of ["0a1b2c3d4e5f6071", "0a1b99999999aaaa"]) await createTask(paths, task(id));
    let err: unknown;
    try {
      resolveTaskRef(paths, "0a1b", "land");
    } catch (e) {
      err = e;
    }
    expect((err as VxError).message).toBe('task id prefix "0a1b" is ambiguous: it starts 0a1b2c3d4e5f6071, 0a1b99999999aaaa - give more of the id');
    expect((err as VxError).exit).toBe(64);
    expect(() => resolveTaskRef(paths, "beef")).toThrow("no task beef in this project - 'vx status' lists its tasks");
  });
  test.each(["abc", "ABCD", "../x", "0123456789abcdef0"])("the parse refuses %p before any file is touched", (ref) => {
    expect(() => assertTaskRef(ref)).toThrow(`invalid task id "${ref}": expected 16 lowercase hex characters, or a unique prefix of at least 4`);
  });
});

describe("tasks on disk", () => {
  const id = "0123456789abcdef";
  test("create, load, modes 0600/0700, key order", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id, { camp_slot: 0, output: "", model: "" }));
    const file = taskPath(paths, id);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(paths.tasksDir).mode & 0o777).toBe(0o700);
    const raw = JSON.parse(readFileSync(file, "utf8"));
    // Optional keys that are empty or zero are omitted; required keys come in schema order.
    expect(Object.keys(raw)).toEqual(["id", "schema_version", "kind", "prompt", "status", "created_at", "updated_at"]);
    expect(loadTask(paths, id)?.value.prompt).toBe("fix the bug");
  });

  test("unknown top-level fields survive a save, sorted after known ones", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    const file = taskPath(paths, id);
    const raw = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ zeta: { nested: [1, 2] }, ...raw, alpha: "newer build" }));
    await updateTask(paths, id, (t) => ({ ...t, status: "done" }));
    const after = JSON.parse(readFileSync(file, "utf8"));
    expect(after.status).toBe("done");
    expect(after.zeta).toEqual({ nested: [1, 2] });
    expect(after.alpha).toBe("newer build");
    const keys = Object.keys(after);
    expect(keys.slice(-2)).toEqual(["alpha", "zeta"]);
  });

  test("corrupt JSON is a StateError naming the file and the file is untouched", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    const file = taskPath(paths, id);
    writeFileSync(file, "{not json");
    expect(() => listTasks(paths)).toThrow(StateError);
    expect(() => listTasks(paths)).toThrow(file);
    await expect(updateTask(paths, id, (t) => t)).rejects.toThrow(file);
    expect(readFileSync(file, "utf8")).toBe("{not json");
  });

  test("a task whose id is not its file name is corrupt: never loaded, never saved over another task", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    const other = "fedcba9876543210";
    await createTask(paths, task(id));
    await createTask(paths, task(other));
    const file = taskPath(paths, id);
    const text = readFileSync(file, "utf8").replace(`"id": "${id}"`, `"id": "${other}"`);
    writeFileSync(file, text);
    const otherBefore = readFileSync(taskPath(paths, other), "utf8");
    expect(() => loadTask(paths, id)).toThrow(`${file}: its id is "${other}" but its file is named for ${id}`);
    expect(() => listTasks(paths)).toThrow(StateError);
    await expect(updateTask(paths, id, (t) => ({ ...t, status: "done" }))).rejects.toThrow(file);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(readFileSync(taskPath(paths, other), "utf8")).toBe(otherBefore);
  });

  test("a task or pool file that is a dangling symbolic link is reported, not taken as absent", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    const other = "fedcba9876543210";
    const link = taskPath(paths, other);
    symlinkSync(join(tmp(), "gone.json"), link);
    expect(() => listTasks(paths)).toThrow(`${link}: is a symbolic link, which vx refuses inside its state dir`);
    expect(() => loadTask(paths, other)).toThrow(StateError);
    await expect(createTask(paths, task(other))).rejects.toThrow(StateError);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    mkdirSync(dirname(paths.poolFile), { recursive: true });
    symlinkSync(join(tmp(), "gone-pool.json"), paths.poolFile);
    expect(() => readPool(paths)).toThrow(`${paths.poolFile}: is a symbolic link, which vx refuses inside its state dir`);
  });

  test("schema_version 9 is refused with the spec's message", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    const file = taskPath(paths, id);
    const text = readFileSync(file, "utf8").replace('"schema_version": 1', '"schema_version": 9');
    writeFileSync(file, text);
    expect(() => loadTask(paths, id)).toThrow(`${file}: unsupported schema version 9 (expected 1)`);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test("a task with no schema_version loads", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    const file = taskPath(paths, id);
    const raw = JSON.parse(readFileSync(file, "utf8"));
    delete raw.schema_version;
    writeFileSync(file, JSON.stringify(raw));
    expect(loadTask(paths, id)?.value.id).toBe(id);
  });

  test("writes leave no temporary files behind", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id));
    for (let i = 0; i < 5; i++) await updateTask(paths, id, (t) => ({ ...t, prompt: `p${i}` }));
    expect(readdirSync(paths.tasksDir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  test("concurrent read-modify-writes from many processes lose nothing", async () => {
    const paths = projectPaths(tmp(), "/p/app");
    await createTask(paths, task(id, { redispatches: 0 }));
    const script = join(import.meta.dir, "..", "fixtures", "bump-task.ts");
    const procs = Array.from({ length: 8 }, () => Bun.spawn(["bun", script, paths.stateDir, id, "5"], { stdout: "pipe", stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual(Array(8).fill(0));
    expect(loadTask(paths, id)?.value.redispatches).toBe(40);
  });
});

describe("a task's operation lock", () => {
  test("busy while a command holds it; a lease is abandoned only with no task file and no command", async () => {
    const paths = projectPaths(join(tmp(), ".vexillum"), "/p");
    const id = newTaskId();
    expect(isTaskBusy(paths, id)).toBe(false);
    expect(isLeaseAbandoned(paths, id)).toBe(true);
    await withTaskOp(paths, id, async () => {
      expect(isTaskBusy(paths, id)).toBe(true);
      expect(isLeaseAbandoned(paths, id)).toBe(false);
    });
    await createTask(paths, taskFixture({ id }));
    expect(isLeaseAbandoned(paths, id)).toBe(false);
  });
});

describe("kernel locks", () => {
  test("exclusive, probe, released on release", async () => {
    const path = join(tmp(), "x.lock");
    const held = tryLockExclusive(path);
    expect(held).toBeDefined();
    expect(isLockHeld(path)).toBe(true);
    held?.release();
    expect(isLockHeld(path)).toBe(false);
    expect(await withLock(path, () => 7)).toBe(7);
  });
  test("a probe of a lock never taken opens nothing; an untaken file, a link or a directory answer as before", () => {
    const dir = tmp();
    const opens = spyOn(fs, "openSync");
    try {
      // The sentinel probes every running task's operation lock each pass, and most were never taken.
      expect(isLockHeld(join(dir, "never.lock"))).toBe(false);
      expect(opens).not.toHaveBeenCalled();
      writeFileSync(join(dir, "free.lock"), "");
      expect(isLockHeld(join(dir, "free.lock"))).toBe(false);
      expect(opens).toHaveBeenCalledTimes(1);
    } finally {
      opens.mockRestore();
    }
    symlinkSync(join(dir, "free.lock"), join(dir, "link.lock"));
    expect(() => isLockHeld(join(dir, "link.lock"))).toThrow(StateError);
    mkdirSync(join(dir, "dir.lock"));
    expect(() => isLockHeld(join(dir, "dir.lock"))).toThrow("is a directory, not a regular file");
  });
  test("the kernel releases a dead holder's lock", async () => {
    const path = join(tmp(), "y.lock");
    const script = join(import.meta.dir, "..", "fixtures", "hold-lock.ts");
    const proc = Bun.spawn(["bun", script, path], { stdout: "pipe", stderr: "inherit" });
    const reader = proc.stdout.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("locked");
    expect(isLockHeld(path)).toBe(true);
    expect(tryLockExclusive(path)).toBeUndefined();
    proc.kill("SIGKILL");
    await proc.exited;
    const again = tryLockExclusive(path);
    expect(again).toBeDefined();
    again?.release();
  });
});

describe("git toplevel", () => {
  const { gitToplevel } = require("../../src/state/paths") as typeof import("../../src/state/paths");
  const { realExec } = require("../../src/exec") as typeof import("../../src/exec");
  const gitTop = (cwd: string) => Bun.spawnSync(["git", "rev-parse", "--show-toplevel"], { cwd, stdout: "pipe", stderr: "pipe" }).stdout.toString().trim();

  test("agrees with git in a repo, a subdirectory, a worktree and outside", async () => {
    const { mkdirSync, realpathSync, symlinkSync } = require("node:fs") as typeof import("node:fs");
    const base = realpathSync(tmp());
    const repo = join(base, "repo");
    mkdirSync(join(repo, "a", "b"), { recursive: true });
    Bun.spawnSync(["git", "init", "-q", repo]);
    Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"]);
    Bun.spawnSync(["git", "-C", repo, "worktree", "add", "-q", join(base, "wt")]);
    symlinkSync(repo, join(base, "link"));
    for (const cwd of [repo, join(repo, "a", "b"), join(base, "wt"), join(base, "link", "a")]) {
      expect(await gitToplevel(cwd, realExec)).toBe(realpathSync(gitTop(cwd)));
    }
    const outside = join(base, "plain");
    mkdirSync(outside);
    expect(await gitToplevel(outside, realExec)).toBeUndefined();
  });
});

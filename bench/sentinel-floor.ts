/**
 * The sentinel bench's floor: compiled with vx's own build options, it does every pass the I/O a
 * sentinel pass does at its state root, and nothing else: list the projects and read each record,
 * list the wake journal, readdir + read + JSON.parse every task file, lstat each running task's
 * op lock and probe it with flock, stat its pause file, run `herdr agent list` and parse it, stat
 * the binary and the root, all under one watch per states dir, then wait the poll interval.
 * Usage: sentinel-floor <state root> <poll ms>
 */
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, statSync, watch } from "node:fs";
import { join } from "node:path";

const [root, pollArg] = process.argv.slice(2) as [string, string];
const poll = Number(pollArg);
const libc = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
const LOCK_SH = 1;
const LOCK_NB = 4;
const LOCK_UN = 8;
const projects = join(root, "projects");
// Held for the process's life, as the sentinel holds its watches.
export const watchers = readdirSync(projects).map((key) => watch(join(projects, key, "states"), () => {}));

function readJson(path: string): { id?: string; status?: string; herdr_agent_name?: string } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return JSON.parse(readFileSync(fd, "utf8"));
  } finally {
    closeSync(fd);
  }
}

async function pass(): Promise<void> {
  for (const key of readdirSync(projects)) {
    const dir = join(projects, key);
    readJson(join(dir, "project.json"));
    try {
      readdirSync(join(dir, "wakes"), { withFileTypes: true });
    } catch {
      // No journal yet, as in a project that never woke its commander.
    }
    const tasks = join(dir, "tasks");
    let names: string[] = [];
    try {
      names = readdirSync(tasks).sort();
    } catch {
      // A project with no task yet.
    }
    for (const name of names) {
      if (!name.endsWith(".json") || name.startsWith(".")) continue;
      const task = readJson(join(tasks, name));
      if (task.status !== "running") continue;
      const lock = join(tasks, `.${task.id}.op.lock`);
      if (lstatSync(lock, { throwIfNoEntry: false })) {
        const fd = openSync(lock, constants.O_RDONLY | constants.O_NOFOLLOW);
        if (libc.symbols.flock(fd, LOCK_SH | LOCK_NB) === 0) libc.symbols.flock(fd, LOCK_UN);
        closeSync(fd);
      }
      statSync(join(dir, "pauses", `${task.herdr_agent_name}.md`), { throwIfNoEntry: false });
    }
  }
  const p = Bun.spawn(["herdr", "agent", "list"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  JSON.parse(out);
  statSync(process.execPath);
  statSync(root);
}

// As vx's sentinel does before its first pass: the build's raised JIT thresholds are for start-up only (src/jit.ts).
Bun.unsafe.setJITPolicy(1);
for (;;) {
  await pass();
  await Bun.sleep(poll);
}

/** A task's operation lock held from outside, as a command in a terminal holds it, and the kernel's word on who waits for it. */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const HOLDER = join(import.meta.dir, "fixtures", "hold-lock.ts");

/** A separate process holding `path` exclusively until released; resolves once it holds it. */
export async function holdLock(path: string): Promise<{ release(): Promise<void> }> {
  const proc = Bun.spawn(["bun", HOLDER, path], { stdout: "pipe", stderr: "inherit" });
  const first = new TextDecoder().decode((await proc.stdout.getReader().read()).value);
  if (first.trim() !== "locked") throw new Error(`lock holder said ${JSON.stringify(first)}`);
  return {
    async release() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

/** Whether some process is blocked in flock(2) on `path`: a `->` line of /proc/locks naming its inode. */
export function waitedOn(path: string): boolean {
  const ino = String(statSync(path).ino);
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .some((line) => {
      // `1: -> FLOCK  ADVISORY  WRITE <pid> <maj>:<min>:<inode> 0 EOF`
      const f = line.trim().split(/\s+/);
      return f[1] === "->" && f[2] === "FLOCK" && f[6]?.split(":")[2] === ino;
    });
}

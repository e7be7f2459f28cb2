/**
 * `Bun.spawn` returns once the child is forked, before it has exec'd its program: until then its
 * /proc entries (cmdline, environ, exe) still describe the test runner, and for a moment during
 * the exec /proc/<pid>/exe already names the new program while cmdline and environ read empty.
 * Tests that inspect a child wait for its new image, complete, first.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";
import { waitFor } from "./helpers";

/** The name of the program `pid` runs now (Linux: /proc/<pid>/exe; elsewhere the kernel's comm). */
function programOf(pid: number): string | undefined {
  if (process.platform === "linux") {
    try {
      const name = basename(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, ""));
      return readFileSync(`/proc/${pid}/cmdline`).length > 0 ? name : undefined;
    } catch {
      return undefined;
    }
  }
  const ps = Bun.spawnSync(["ps", "-o", "ucomm=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
  return ps.stdout.toString().trim() || undefined;
}

/** Waits until `pid` has exec'd the program named `program` (a base name: `sleep`, `dash`). */
export async function execed(pid: number, program: string): Promise<void> {
  await waitFor(() => programOf(pid) === program, 10_000, `process ${pid} to exec ${program}`);
}

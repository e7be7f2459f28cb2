/**
 * Running a command in new user, mount and pid namespaces (`unshare`): the test may mount there
 * (a read-only bind, a small tmpfs) without privileges, and everything started inside ends with
 * the namespace's first process.
 */
import type { RunResult } from "./helpers";

export const UNSHARE = Bun.which("unshare");
export const BASH = Bun.which("bash");
export const MOUNT = Bun.which("mount");
export const NAMESPACES = ["--user", "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc"];

/** Whether this machine lets a test build the namespaces at all (a kernel may forbid user namespaces). */
export const canUnshare = (() => {
  if (!UNSHARE || !BASH || !MOUNT) return false;
  const r = Bun.spawnSync([UNSHARE, ...NAMESPACES, "--", MOUNT, "--bind", "/tmp", "/tmp"], { stdout: "ignore", stderr: "pipe" });
  // A skip says why: a kernel that forbids them, or a transient refusal worth seeing.
  if (r.exitCode !== 0) console.error(`test: no user, mount and pid namespaces here (unshare exited ${r.exitCode}: ${r.stderr.toString().trim()}): their tests are skipped`);
  return r.exitCode === 0;
})();

/** Runs bash `script` (with `args` as $1...) inside the namespaces; what it printed and its exit code. */
export async function inNamespaces(script: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<RunResult> {
  const proc = Bun.spawn([UNSHARE!, ...NAMESPACES, "--", BASH!, "-c", script, "bash", ...args], { cwd: opts.cwd, env: opts.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

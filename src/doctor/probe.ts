// DOC-10: the hook's command under `env -i` in an empty directory, in its own process group, killed as a group at the probe's
// limit (a found vx may be sitting in `sentinel await`).
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../deps";
import { scaled } from "../time";
import type { Check } from "../check";

const NAME = "sentinel Stop hook finds vx";
const NOT_FOUND = "vx: not found, so the sentinel Stop hook cannot wake the commander";

export async function hookProbeCheck(deps: Deps, command: string, home: string): Promise<Check> {
  const dir = mkdtempSync(join(deps.env.TMPDIR || "/tmp", "vx-doctor-"));
  try {
    const proc = Bun.spawn(["env", "-i", `HOME=${home}`, "PATH=/usr/bin:/bin", "sh", "-c", command], {
      cwd: dir,
      env: { PATH: deps.env.PATH ?? "/usr/bin:/bin" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      detached: true,
    });
    let stopped = false;
    const timer = setTimeout(
      () => {
        stopped = true;
        try {
          process.kill(-proc.pid, "SIGKILL");
        } catch {
          proc.kill("SIGKILL");
        }
      },
      scaled("doctorProbe", deps.env),
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    if (!stopped && (stderr.includes(NOT_FOUND) || code === 127)) {
      return {
        status: "warn",
        name: NAME,
        detail:
          "not found with a minimal environment (HOME and PATH=/usr/bin:/bin only), so the commander is never woken; install vx where the hook looks (~/.local/bin, or Homebrew) and run 'vx upgrade' to rewrite the hook",
      };
    }
    return { status: "ok", name: NAME, detail: "found with a minimal environment" };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

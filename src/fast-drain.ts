// The Stop hook's `vx sentinel drain` before the rest of vx loads: it decides only "certainly nothing to deliver",
// else hands over, so its answer is always the full drain's.
import { readdirSync, writeSync } from "node:fs";
import { gitToplevel, isUnder, projectPaths, stateRoot } from "./state/paths";

function empty(dir: string): boolean {
  try {
    // Only deliverable wakes and claims (`.json`, `.claimed-`) matter; dot-files are journals.
    return !readdirSync(dir).some((n) => !n.startsWith(".") && (n.endsWith(".json") || n.includes(".claimed-")));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** True when `{}` was printed: nothing could be delivered here. False: run the full drain. */
export async function fastDrain(env: Record<string, string | undefined>, cwd: string): Promise<boolean> {
  if (!env.HOME || env.TMUX_PANE || env.GIT_DIR || env.GIT_WORK_TREE) return false;
  const root = stateRoot(env);
  let nothing = !env.HERDR_WORKSPACE_ID || isUnder(cwd, root);
  if (!nothing) {
    // The walk never spawns git when GIT_DIR/GIT_WORK_TREE are unset (checked above).
    const top = await gitToplevel(cwd, undefined as never, env);
    const paths = top && !isUnder(top, root) ? projectPaths(root, top) : undefined;
    nothing = !paths || (empty(paths.wakesDir) && empty(paths.forumWakesDir));
  }
  // writeSync, not process.stdout: building the stdout stream costs more than the whole drain.
  if (nothing) writeSync(1, "{}\n");
  return nothing;
}

/** Doctor's checks of the state root (DOC-06) and of another vx earlier in PATH (DOC-07). */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Deps } from "../deps";
import { which } from "../exec";
import { realpathOr } from "../state/paths";
import type { Check } from "../check";

const NAME = "~/.vexillum/";

export function stateRootCheck(root: string): Check {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(root);
  } catch {
    return { status: "missing", name: NAME, detail: "does not exist, run 'vx init'", required: true };
  }
  if (!st.isDirectory()) return { status: "missing", name: NAME, detail: "exists but is not a directory", required: true };
  try {
    accessSync(root, constants.W_OK | constants.X_OK);
  } catch {
    return { status: "missing", name: NAME, detail: "not writable", required: true };
  }
  const mode = st.mode & 0o777;
  if (mode !== 0o700) return { status: "warn", name: NAME, detail: `mode ${mode.toString(8).padStart(4, "0")}, expected 0700` };
  return { status: "ok", name: NAME };
}

/** DOC-07: shells, the Stop hook and the sentinel's launches run the first `vx` on PATH; the ok line says why, so the name is no finding. */
export function shadowCheck(deps: Deps): Check {
  const name = "another vx earlier in PATH";
  const first = which("vx", deps.env.PATH);
  if (!first) return { status: "ok", name, detail: "none (no vx on PATH)" };
  // A development run (bun plus the entry script) has no binary to compare with.
  if (deps.self.length > 1) return { status: "ok", name, detail: "not checked (running from source)" };
  let firstReal: string;
  try {
    firstReal = realpathSync(first);
  } catch {
    return { status: "ok", name, detail: `not checked (cannot resolve ${first})` };
  }
  const self = deps.self[0] ?? "";
  if (firstReal === realpathOr(self)) return { status: "ok", name, detail: "none, the first vx on PATH is this one" };
  return {
    status: "warn",
    name,
    detail: `${first} is what 'vx' runs (in your shell and the Stop hook), not this vx (${self}); if that is not the one you mean, remove it or put ${dirname(self)} before it in PATH`,
  };
}

/** Doctor's checks of the state root (DOC-06) and of another vx earlier in PATH (DOC-07). */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import type { Deps } from "../deps";
import { which } from "../exec";
import { realpathOr } from "../state/paths";
import type { Check } from "./report";

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

/** Warns when the first `vx` on PATH is not the binary running now (the hook would run that one). */
export function shadowCheck(deps: Deps): Check {
  const name = "another vx earlier in PATH";
  const first = which("vx", deps.env.PATH);
  if (!first) return { status: "ok", name };
  // A development run (bun plus the entry script) has no binary to compare with.
  if (deps.self.length > 1) return { status: "ok", name };
  let firstReal: string;
  try {
    firstReal = realpathSync(first);
  } catch {
    return { status: "ok", name };
  }
  if (firstReal === realpathOr(deps.self[0])) return { status: "ok", name };
  return { status: "warn", name, detail: first };
}

// Reports a soldier's state from inside its harness, one `vx report` at a time and in order, the
// newest state winning: two children racing could land out of order and leave a stale state as the
// last word. Each child is detached (its own process group, so a Ctrl+C in the pane does not kill
// it), its output ignored and unref'd, so the harness never waits on it; every failure is
// swallowed. pi-state.ts and opencode-state.ts import it for the type checker, and vx writes the
// text after the cut line in that import's place (program-text.ts).
export { report };
// vx's own values, put in the text when written (state-hook-templates.ts).
declare const __VX__: string;
declare const __HARNESS__: string;
declare const __REPORT_CHILD_MS__: number;
// ---- vx writes what follows ----
import { type ChildProcess, spawn } from "node:child_process";

const VX = __VX__;
const HARNESS = __HARNESS__;

let wanted: string | undefined; // the state last asked for
let pending: string | undefined; // asked for while a report runs
let running = false;

function report(state: string): void {
  if (state === wanted) return;
  wanted = state;
  pending = state;
  if (!running) next();
}

function next(): void {
  const state = pending;
  pending = undefined;
  if (state === undefined) {
    running = false;
    return;
  }
  running = true;
  let child: ChildProcess | undefined;
  let settled = false;
  const done = (): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    next();
  };
  // vx report answers within a second; one that hangs must not hold every later state back.
  const timer = setTimeout(() => {
    try {
      child?.kill("SIGKILL");
    } catch {}
    done();
  }, __REPORT_CHILD_MS__);
  timer.unref?.();
  try {
    child = spawn(VX, ["report", state], { stdio: "ignore", detached: true, env: { ...process.env, VX_HARNESS: HARNESS } });
    child.once("error", done);
    child.once("exit", done);
    child.unref();
  } catch {
    done();
  }
}

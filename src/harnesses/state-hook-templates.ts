/**
 * The two state-hook files that run inside a soldier's harness, not inside vx: the Pi extension
 * and the OpenCode plugin. Like the commander wake templates they use Node built-ins only; the vx
 * path is written into them as a JSON string literal, never through a shell.
 */

/**
 * Reports from inside the harness, one `vx report` at a time and in order, the newest state
 * winning: two children racing could land out of order and leave a stale state as the last word.
 * Each child is detached (its own process group, so a Ctrl+C in the pane does not kill it), its
 * output ignored and unref'd, so the harness never waits on it; every failure is swallowed.
 */
const REPORTER = String.raw`
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
  }, 10_000);
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
`;

/** The import and the two constants (vx's absolute path, the harness name) the reporter needs. */
function prelude(vx: string, harness: string): string {
  return `import { type ChildProcess, spawn } from "node:child_process";\n\nconst VX = ${JSON.stringify(vx)};\nconst HARNESS = ${JSON.stringify(harness)};\n`;
}

const PI_HEADER = `// vexillum state extension for a Pi soldier, written by vx for this launch only (loaded with -e).
// It records the soldier's state with "vx report": working when a run starts, idle when it ends.
`;

const PI_BODY = String.raw`
export default function vexillumState(pi: { on(event: string, handler: () => void): void }): void {
  pi.on("agent_start", () => report("working"));
  pi.on("agent_end", () => report("idle"));
}
`;

export function piExtension(vx: string): string {
  return `${PI_HEADER}${prelude(vx, "pi")}${REPORTER}${PI_BODY}`;
}

const OPENCODE_HEADER = `// vexillum state plugin for an OpenCode soldier, written by vx for this launch only (named in
// OPENCODE_CONFIG_CONTENT). It records the soldier's state with "vx report" from OpenCode's events.
`;

// Subagents run in child sessions with statuses of their own, so the state is over every session
// this process saw: blocked while any permission or question waits, else working while any session
// is busy (or retrying), else idle. session.status repeats "busy" on every step; report() drops
// repeats, so vx runs only when the state changes.
const OPENCODE_BODY = String.raw`
type Event = { type: string; properties?: { id?: unknown; sessionID?: unknown; requestID?: unknown; status?: { type?: unknown } } };

const busy = new Set<string>(); // session ids
const waiting = new Map<string, string>(); // permission or question id -> its session id

function update(): void {
  if (waiting.size > 0) report("blocked");
  else if (busy.size > 0) report("working");
  else report("idle");
}

// OpenCode calls every export of this module as a plugin, so it exports this one function only.
export const VexillumState = async () => ({
  event: async ({ event }: { event: Event }) => {
    const p = event.properties ?? {};
    if (typeof p.sessionID !== "string") return;
    const session = p.sessionID;
    switch (event.type) {
      case "session.status":
        if (p.status?.type !== "idle") {
          busy.add(session);
          break;
        }
        busy.delete(session);
        // A session that stopped waits for nothing (an abort rejects what it asked).
        for (const [id, s] of waiting) if (s === session) waiting.delete(id);
        break;
      case "permission.asked":
      case "question.asked":
        if (typeof p.id === "string") waiting.set(p.id, session);
        break;
      case "permission.replied":
      case "question.replied":
      case "question.rejected":
        if (typeof p.requestID === "string") waiting.delete(p.requestID);
        break;
      default:
        return;
    }
    update();
  },
});
`;

export function opencodePlugin(vx: string): string {
  return `${OPENCODE_HEADER}${prelude(vx, "opencode")}${REPORTER}${OPENCODE_BODY}`;
}

// vexillum state extension for a Pi soldier, written by vx for this launch only (loaded with -e).
// It records the soldier's state with "vx report": working when a run starts, idle when it ends.
import { report } from "./state-reporter.ts"; // vx writes the reporter here

export default function vexillumState(pi: { on(event: string, handler: () => void): void }): void {
  pi.on("agent_start", () => report("working"));
  pi.on("agent_end", () => report("idle"));
}

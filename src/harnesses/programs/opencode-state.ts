// vexillum state plugin for an OpenCode soldier, written by vx for this launch only (named in
// OPENCODE_CONFIG_CONTENT). It records the soldier's state with "vx report" from OpenCode's events.
import { report } from "./state-reporter.ts"; // vx writes the reporter here

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

/** The reason text every deliverer gives (WAK-11) and drain's Stop-hook line (AWT-02): the wording is a contract with the commander's instructions. */
import type { ForumWake, SoldierWake } from "../state/schemas";
import { parseTime } from "../time";

const SOLDIER_HEADER = "A vexillum soldier's status changed:";
const SOLDIER_FOOTER = "Check on it (and report to the general, or land/strike as appropriate) before ending your turn.";
const FORUM_HEADER = "Forum feedback is waiting for you:";
const FORUM_FOOTER = "Read it, act on it, and acknowledge it with vx forum inbox --ack <uid> before ending your turn.";

// Ties (same detected_at) are ordered by a secondary key so the text is deterministic.
function byDetectedAt<T extends { detected_at: string }>(key: (x: T) => string) {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (a: T, b: T) => parseTime(a.detected_at) - parseTime(b.detected_at) || cmp(key(a), key(b));
}

function soldierSection(wakes: readonly SoldierWake[]): string {
  const lines = [SOLDIER_HEADER];
  for (const w of [...wakes].sort(byDetectedAt((x: SoldierWake) => x.task_id))) {
    lines.push(`- ${w.kind} ${w.task_id}: ${w.old_status} -> ${w.new_status}`);
    if (w.origin) lines.push(`  project: ${w.origin}`);
    if (w.report_path) lines.push(`  report: ${w.report_path}`);
    if (w.note) lines.push(`  note: ${w.note}`);
  }
  lines.push(SOLDIER_FOOTER);
  return lines.join("\n");
}

/** The forum section: one line per session, `count` already recomputed from the inbox. */
export function forumSection(wakes: readonly ForumWake[]): string {
  const lines = [FORUM_HEADER];
  for (const w of [...wakes].sort(byDetectedAt((x: ForumWake) => x.session))) {
    const file = w.file.replace(/[\r\n]/g, " ");
    const noun = w.count === 1 ? "message" : "messages";
    lines.push(`forum session ${file}: ${w.count} new ${noun} (ended: ${w.ended}). Run vx forum inbox.`);
  }
  lines.push(FORUM_FOOTER);
  return lines.join("\n");
}

/** No trailing newline; empty when there is nothing to say. */
export function reasonText(soldier: readonly SoldierWake[], forum: readonly ForumWake[]): string {
  const sections: string[] = [];
  if (soldier.length > 0) sections.push(soldierSection(soldier));
  if (forum.length > 0) sections.push(forumSection(forum));
  return sections.join("\n\n");
}

/** `{"decision":"block","reason":"<text>"}`, keys in that order. */
export function drainLine(text: string): string {
  return JSON.stringify({ decision: "block", reason: text });
}

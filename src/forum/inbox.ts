/** The forum inbox on disk (FOR-01..03): one file per message, the source of truth for what is unread. */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { StateError, StateLinkError } from "../errors";
import { readStateText, refuseLinks, writeStateFile } from "../state/files";
import { isSafeBaseName } from "../state/ids";
import type { ProjectPaths } from "../state/paths";
import { type Loaded, mergeForSave, parseRecord, renderState } from "../state/record";
import { type ForumMessage, ForumMessageSchema, keysOf } from "../state/schemas";
import { isoTime, parseTime } from "../time";
import { claimWake, deleteClaim, putBackClaim } from "../wakes/queue";

const MESSAGE_KEYS = keysOf(ForumMessageSchema);

/** Shared with the currency filter (WAK-10). */
export function isUnread(msg: { acked_at?: unknown }): boolean {
  return msg.acked_at === undefined || msg.acked_at === null || msg.acked_at === "";
}

type InboxMessage = Loaded<ForumMessage> & { path: string };

/** Oldest first; `file` is the newest message's name for it. */
export type InboxSession = { session: string; file: string; messages: InboxMessage[] };

function dirEntries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new StateError(dir, `cannot read: ${(err as Error).message}`);
  }
}

/** `uid` and `session` must match where it lies: an ack rewrites the file it found. */
function parseMessage(path: string, session: string, text: string): InboxMessage {
  const loaded = parseRecord(path, text, ForumMessageSchema);
  const uid = basename(path, ".json");
  if (loaded.value.uid !== uid || loaded.value.session !== session) {
    throw new StateError(path, `it names message "${loaded.value.uid}" of session "${loaded.value.session}" but lies at ${session}/${uid}.json - vx leaves it as it is; repair it or move it aside`);
  }
  return { ...loaded, path };
}

/** Read or not; a corrupt file throws. */
function sessionMessages(paths: ProjectPaths, session: string): InboxMessage[] {
  const dir = join(paths.forumInboxDir, session);
  const out: InboxMessage[] = [];
  for (const e of dirEntries(dir)) {
    // Dot-files are writers' temporaries (STA-05).
    if (e.name.startsWith(".") || !e.name.endsWith(".json")) continue;
    const path = join(dir, e.name);
    const text = readStateText(path);
    if (text !== undefined) out.push(parseMessage(path, session, text));
  }
  return out;
}

/** A linked one is refused. */
function sessionNames(paths: ProjectPaths): string[] {
  refuseLinks(paths.root, paths.forumInboxDir);
  const names: string[] = [];
  for (const e of dirEntries(paths.forumInboxDir)) {
    if (e.name.startsWith(".") || !isSafeBaseName(e.name)) continue;
    if (e.isSymbolicLink()) throw new StateLinkError(join(paths.forumInboxDir, e.name));
    if (e.isDirectory()) names.push(e.name);
  }
  return names.sort();
}

/** FOR-01. */
export function unreadCount(paths: ProjectPaths, session: string): number {
  return sessionMessages(paths, session).filter((m) => isUnread(m.value)).length;
}

export function unreadUids(paths: ProjectPaths, session: string): string[] {
  return sessionMessages(paths, session)
    .filter((m) => isUnread(m.value))
    .map((m) => m.value.uid);
}

/** Read or not; a corrupt one throws. */
export function readMessage(paths: ProjectPaths, session: string, uid: string): InboxMessage | undefined {
  const path = join(paths.forumInboxDir, session, `${uid}.json`);
  const text = readStateText(path);
  return text === undefined ? undefined : parseMessage(path, session, text);
}

export function hasMessage(paths: ProjectPaths, session: string, uid: string): boolean {
  return readStateText(join(paths.forumInboxDir, session, `${uid}.json`)) !== undefined;
}

/** FOR-01. */
export function writeMessage(paths: ProjectPaths, msg: ForumMessage): void {
  if (!isSafeBaseName(msg.session) || !isSafeBaseName(msg.uid)) throw new StateError(paths.forumInboxDir, `invalid message name ${msg.session}/${msg.uid}`);
  writeStateFile(paths.root, join(paths.forumInboxDir, msg.session, `${msg.uid}.json`), renderState(mergeForSave(msg, MESSAGE_KEYS, undefined)));
}

const byAge = (a: InboxMessage, b: InboxMessage) => parseTime(a.value.received_at) - parseTime(b.value.received_at) || (a.value.uid < b.value.uid ? -1 : a.value.uid > b.value.uid ? 1 : 0);

/** FOR-02: sessions ordered by their oldest unread message. */
export function unreadSessions(paths: ProjectPaths): InboxSession[] {
  const sessions: InboxSession[] = [];
  for (const session of sessionNames(paths)) {
    const messages = sessionMessages(paths, session)
      .filter((m) => isUnread(m.value))
      .sort(byAge);
    const newest = messages.at(-1);
    if (newest) sessions.push({ session, file: newest.value.file, messages });
  }
  return sessions.sort((a, b) => byAge(a.messages[0] as InboxMessage, b.messages[0] as InboxMessage));
}

type AckResult = { acked: string[]; unknown: string[] };

/** FOR-03: stamps `acked_at`, then drops the wake of each session with nothing unread left. */
export function acknowledge(paths: ProjectPaths, uids: readonly string[], now: number, pid: number): AckResult {
  const wanted = new Set(uids.filter(isSafeBaseName));
  // All read before any is written: a corrupt one stops the ack with nothing changed.
  const all = sessionNames(paths).flatMap((session) => sessionMessages(paths, session));
  const found = new Set<string>();
  const touched = new Set<string>();
  for (const msg of all) {
    if (!wanted.has(msg.value.uid) || !isUnread(msg.value)) continue;
    const next = { ...msg.value, acked_at: isoTime(now) };
    writeStateFile(paths.root, msg.path, renderState(mergeForSave(next, MESSAGE_KEYS, msg.raw)));
    found.add(msg.value.uid);
    touched.add(msg.value.session);
  }
  for (const session of touched) dropWakeIfRead(paths, session, now, pid);
  const acked = [...new Set(uids)].filter((u) => found.has(u));
  const unknown = [...new Set(uids)].filter((u) => !found.has(u));
  return { acked, unknown };
}

/**
 * Claim first, count after: writers put the message before the wake (FOR-01), so an earlier message is
 * counted and a later wake is a new file. A deliverer holding the wake recounts itself (WAK-10).
 */
function dropWakeIfRead(paths: ProjectPaths, session: string, now: number, pid: number): void {
  const claimed = claimWake(paths.forumWakesDir, `${session}.json`, pid, now);
  if (!claimed) return;
  let unread: number;
  try {
    unread = sessionMessages(paths, session).filter((m) => isUnread(m.value)).length;
  } catch {
    unread = 1; // the delivery-time filter decides
  }
  if (unread === 0) deleteClaim(claimed);
  else putBackClaim(claimed);
}

/**
 * The forum inbox on disk (FOR-01..03): `forum-inbox/<session>/<uid>.json`, one file per message,
 * the source of truth for what the commander has not read yet. Listing reads it; acknowledging
 * stamps `acked_at` on a message and, once a session has nothing unread left, drops its forum wake.
 */
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

/** The one test of "unread", shared with the forum wakes' currency filter (WAK-10). */
export function isUnread(msg: { acked_at?: unknown }): boolean {
  return msg.acked_at === undefined || msg.acked_at === null || msg.acked_at === "";
}

type InboxMessage = Loaded<ForumMessage> & { path: string };

/** One session's unread messages, oldest first; `file` is the newest message's name for it. */
export type InboxSession = { session: string; file: string; messages: InboxMessage[] };

function dirEntries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new StateError(dir, `cannot read: ${(err as Error).message}`);
  }
}

/**
 * A message file's content. Its `uid` and `session` must match where it lies: an ack rewrites the
 * file it found, so a mismatch would acknowledge one message under another's name.
 */
function parseMessage(path: string, session: string, text: string): InboxMessage {
  const loaded = parseRecord(path, text, ForumMessageSchema);
  const uid = basename(path, ".json");
  if (loaded.value.uid !== uid || loaded.value.session !== session) {
    throw new StateError(path, `it names message "${loaded.value.uid}" of session "${loaded.value.session}" but lies at ${session}/${uid}.json - vx leaves it as it is; repair it or move it aside`);
  }
  return { ...loaded, path };
}

/** Every message of one session directory, read or not (a corrupt file throws, naming it). */
function sessionMessages(paths: ProjectPaths, session: string): InboxMessage[] {
  const dir = join(paths.forumInboxDir, session);
  const out: InboxMessage[] = [];
  for (const e of dirEntries(dir)) {
    // Dot-files are writers' temporaries (STA-05); anything else not `.json` is not a message.
    if (e.name.startsWith(".") || !e.name.endsWith(".json")) continue;
    const path = join(dir, e.name);
    const text = readStateText(path);
    if (text !== undefined) out.push(parseMessage(path, session, text));
  }
  return out;
}

/** Session names with an inbox directory; a linked one is refused (never read through). */
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

/** How many messages of one session are unread (FOR-01); the count a forum wake carries. */
export function unreadCount(paths: ProjectPaths, session: string): number {
  return sessionMessages(paths, session).filter((m) => isUnread(m.value)).length;
}

/** The uids of one session's unread messages. */
export function unreadUids(paths: ProjectPaths, session: string): string[] {
  return sessionMessages(paths, session)
    .filter((m) => isUnread(m.value))
    .map((m) => m.value.uid);
}

/** Message `uid` of `session`, read or not; undefined when absent (a corrupt one throws, naming it). */
export function readMessage(paths: ProjectPaths, session: string, uid: string): InboxMessage | undefined {
  const path = join(paths.forumInboxDir, session, `${uid}.json`);
  const text = readStateText(path);
  return text === undefined ? undefined : parseMessage(path, session, text);
}

/** Whether message `uid` of `session` is on disk, read or not. */
export function hasMessage(paths: ProjectPaths, session: string, uid: string): boolean {
  return readStateText(join(paths.forumInboxDir, session, `${uid}.json`)) !== undefined;
}

/** FOR-01: writes one new message file atomically (`deliverMessage` puts it between its journal and wake). */
export function writeMessage(paths: ProjectPaths, msg: ForumMessage): void {
  if (!isSafeBaseName(msg.session) || !isSafeBaseName(msg.uid)) throw new StateError(paths.forumInboxDir, `invalid message name ${msg.session}/${msg.uid}`);
  writeStateFile(paths.root, join(paths.forumInboxDir, msg.session, `${msg.uid}.json`), renderState(mergeForSave(msg, MESSAGE_KEYS, undefined)));
}

const byAge = (a: InboxMessage, b: InboxMessage) => parseTime(a.value.received_at) - parseTime(b.value.received_at) || (a.value.uid < b.value.uid ? -1 : a.value.uid > b.value.uid ? 1 : 0);

/** FOR-02: unread messages grouped by session; sessions ordered by their oldest unread message. */
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

/** What `acknowledge` did: the uids it stamped and the ones with no unread message. */
type AckResult = { acked: string[]; unknown: string[] };

/**
 * FOR-03: stamps `acked_at` on each named unread message (every other field kept as it was), then
 * drops the forum wake of each session that has nothing unread left. A uid that is no safe base
 * name, or names no unread message, is reported back in `unknown`.
 */
export function acknowledge(paths: ProjectPaths, uids: readonly string[], now: number, pid: number): AckResult {
  const wanted = new Set(uids.filter(isSafeBaseName));
  // Every file is read before any is written: a corrupt one stops the ack with nothing changed.
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
 * Deletes `wakes/forum/<session>.json` once the session has no unread message. The wake is
 * claimed first and the inbox counted after: a writer puts its message before its wake (FOR-01),
 * so a message that arrived before the claim is seen by the count (the wake goes back), and a
 * wake written after the claim is a new file this never touches. A deliverer holding the wake
 * already recounts the inbox itself (WAK-10).
 */
function dropWakeIfRead(paths: ProjectPaths, session: string, now: number, pid: number): void {
  const claimed = claimWake(paths.forumWakesDir, `${session}.json`, pid, now);
  if (!claimed) return;
  let unread: number;
  try {
    unread = sessionMessages(paths, session).filter((m) => isUnread(m.value)).length;
  } catch {
    unread = 1; // cannot tell: keep the wake, the delivery-time filter decides
  }
  if (unread === 0) deleteClaim(claimed);
  else putBackClaim(claimed);
}

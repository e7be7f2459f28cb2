/**
 * A general's message reaching the commander (FOR-01, WAK-04), journaled like WAK-05: pending file,
 * inbox message, merged forum wake, pending removed. `recoverDeliveries` rings a leftover's wake if its
 * message is unread, else drops it (no 201 was given, so the page kept the text).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { VxError, errorMessage } from "../errors";
import { readStateText, removeFile, writeStateFile } from "../state/files";
import { isSafeBaseName } from "../state/ids";
import type { ProjectPaths } from "../state/paths";
import { mergeForSave, parseRecord, renderState } from "../state/record";
import { type ForumMessage, type ForumPending, ForumPendingSchema, type ForumWake, keysOf } from "../state/schemas";
import { isoTime, parseTime } from "../time";
import { writeForumWake } from "../wakes/queue";
import { isUnread, readMessage, unreadCount, writeMessage } from "./inbox";

const PENDING_KEYS = keysOf(ForumPendingSchema);
/** A uid has no dot, a session may. */
const PENDING_RE = /^\.(.+)\.([^.]+)\.pending$/;

function pendingPath(paths: ProjectPaths, session: string, uid: string): string {
  if (!isSafeBaseName(session) || !isSafeBaseName(uid) || uid.includes(".")) throw new VxError(`invalid forum message name ${session}/${uid}`);
  return join(paths.forumWakesDir, `.${session}.${uid}.pending`);
}

/** Step 3; none when nothing is unread. */
function ring(paths: ProjectPaths, p: ForumPending): ForumWake | undefined {
  const count = unreadCount(paths, p.session);
  if (count === 0) return undefined;
  return writeForumWake(paths, { session: p.session, file: p.file, count, ended: p.ended, detectedAt: parseTime(p.detected_at) });
}

/** FOR-01: the caller answers 201 only after this returns. */
export function deliverMessage(paths: ProjectPaths, msg: ForumMessage, ended: boolean, now: number): ForumWake | undefined {
  const pending: ForumPending = { session: msg.session, uid: msg.uid, file: msg.file, ended, detected_at: isoTime(now) };
  const path = pendingPath(paths, msg.session, msg.uid);
  writeStateFile(paths.root, path, renderState(mergeForSave(pending, PENDING_KEYS, undefined)));
  if (!readMessage(paths, msg.session, msg.uid)) writeMessage(paths, msg);
  const wake = ring(paths, pending);
  removeFile(path);
  return wake;
}

type DeliveryRecovery = { rung: string[]; dropped: string[]; failed: string[] };

/** Run only while no delivery is in flight (the server's start, under its lock); an unreadable pending file is dropped. */
export function recoverDeliveries(paths: ProjectPaths): DeliveryRecovery {
  const out: DeliveryRecovery = { rung: [], dropped: [], failed: [] };
  let names: string[];
  try {
    names = readdirSync(paths.forumWakesDir);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = name.match(PENDING_RE);
    if (!m) continue;
    const path = join(paths.forumWakesDir, name);
    const label = `${m[1]}/${m[2]}`;
    try {
      let pending: ForumPending | undefined;
      try {
        const text = readStateText(path);
        if (text === undefined) continue;
        pending = parseRecord(path, text, ForumPendingSchema).value;
      } catch (err) {
        removeFile(path);
        out.failed.push(`${label}: ${errorMessage(err)} (dropped)`);
        continue;
      }
      const msg = pending.session === m[1] && pending.uid === m[2] ? readMessage(paths, pending.session, pending.uid) : undefined;
      if (msg && isUnread(msg.value)) {
        ring(paths, pending);
        out.rung.push(label);
      } else {
        out.dropped.push(label);
      }
      removeFile(path);
    } catch (err) {
      out.failed.push(`${label}: ${errorMessage(err)}`);
    }
  }
  return out;
}

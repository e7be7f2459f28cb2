/**
 * Review sessions on disk (FOR-07, FOR-08); delivery in FOR-01's journal order (deliver.ts); the transcript
 * file itself (rewritten whole under the session's lock) in transcript.ts.
 */
import { readdirSync } from "node:fs";
import { dirname, isAbsolute, relative } from "node:path";
import { VxError } from "../errors";
import { ensureStateDir, writeStateFile } from "../state/files";
import { withLock } from "../state/lock";
import { projectPaths } from "../state/paths";
import { loadRecord, mergeForSave, renderState } from "../state/record";
import { type ForumSession, type ForumWake, ForumSessionSchema, type TranscriptLine, keysOf } from "../state/schemas";
import { isoTime } from "../time";
import { readForumWake, writeForumWake } from "../wakes/queue";
import { deliverMessage } from "./deliver";
import { acknowledge, hasMessage, unreadCount, unreadUids } from "./inbox";
import { forumPaths, isSessionKey, sessionKey, sessionPaths } from "./paths";
import { appendTranscriptLine, readTranscriptFile } from "./transcript";

const SESSION_KEYS = keysOf(ForumSessionSchema);

/** FOR-10, in UTF-8 bytes. */
const MAX_MESSAGE_BYTES = 20000;

/** Time first so names sort by arrival. */
export function newUid(now: number): string {
  const rand = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${now.toString(36)}-${rand}`;
}

/** FOR-10. */
export function messageProblem(text: unknown): string | undefined {
  if (typeof text !== "string") return "the message must be text";
  if (text.trim() === "") return "the message is empty";
  if (text.includes("\uFFFD")) return "the message is not valid UTF-8";
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_MESSAGE_BYTES) return `the message is ${bytes} bytes, over the ${MAX_MESSAGE_BYTES}-byte limit`;
  return undefined;
}

export function loadSession(root: string, session: string): ForumSession | undefined {
  if (!isSessionKey(session)) return undefined;
  return loadRecord(sessionPaths(root, session).info, ForumSessionSchema)?.value;
}

export const isEnded = (s: ForumSession) => Boolean(s.ended_at);

function saveSession(root: string, s: ForumSession): void {
  const path = sessionPaths(root, s.session).info;
  const raw = loadRecord(path, ForumSessionSchema)?.raw;
  writeStateFile(root, path, renderState(mergeForSave(s, SESSION_KEYS, raw)));
}

/** FOR-07: made or resumed; an ended one is reopened. */
export async function openSession(root: string, project: string, realFile: string, now: number): Promise<ForumSession> {
  const session = sessionKey(realFile);
  const paths = sessionPaths(root, session);
  return withLock(lockPath(root, paths.lock), () => {
    // A scout's report lives outside the checkout (FOR-07): kept as its absolute path, which the commander's `vx forum reply` takes.
    const inside = relative(project, realFile);
    const file = inside === ".." || inside.startsWith("../") || isAbsolute(inside) ? realFile : inside;
    const current = loadSession(root, session);
    const next: ForumSession = current ? { ...current, file, project_path: project, ended_at: undefined } : { session, file, project_path: project, created_at: isoTime(now) };
    if (!current || current.ended_at || current.file !== file || current.project_path !== project) saveSession(root, next);
    return next;
  });
}

function lockPath(root: string, lock: string): string {
  ensureStateDir(root, dirname(lock));
  return lock;
}

export function readTranscript(root: string, session: string): TranscriptLine[] {
  return readTranscriptFile(sessionPaths(root, session).transcript);
}

function appendLine(root: string, session: string, line: TranscriptLine): Promise<void> {
  const paths = sessionPaths(root, session);
  return appendTranscriptLine(root, paths.transcript, paths.lock, line);
}

/** FOR-08. */
export function requireSession(root: string, session: string, file: string, open: boolean): ForumSession {
  const s = loadSession(root, session);
  if (!s) throw new VxError(`no forum session for ${file} - open one with 'vx forum ${file}'`);
  if (open && isEnded(s)) throw new VxError(`the forum session for ${file} has ended - 'vx forum ${file}' opens it again`);
  return s;
}

/** FOR-07: transcript line, then delivery; a kill between them is repaired at the next server start. */
export async function postFromGeneral(root: string, s: ForumSession, text: string, now: number): Promise<{ line: TranscriptLine; wake?: ForumWake }> {
  const line: TranscriptLine = { uid: newUid(now), from: "general", text, at: isoTime(now) };
  await appendLine(root, s.session, line);
  return { line, wake: deliver(root, s, line, now) };
}

function deliver(root: string, s: ForumSession, line: TranscriptLine, now: number): ForumWake | undefined {
  const msg = { uid: line.uid, session: s.session, file: s.file, text: line.text, received_at: line.at };
  return deliverMessage(projectPaths(root, s.project_path), msg, isEnded(s), now);
}

/** Delivers every general's line the inbox lacks. */
export function recoverSession(root: string, s: ForumSession, now: number): number {
  const project = projectPaths(root, s.project_path);
  let repaired = 0;
  for (const line of readTranscript(root, s.session)) {
    if (line.from !== "general" || hasMessage(project, s.session, line.uid)) continue;
    deliver(root, s, line, now);
    repaired++;
  }
  return repaired;
}

/** FOR-08. */
export async function replyFromCommander(root: string, s: ForumSession, text: string, now: number, pid: number): Promise<{ line: TranscriptLine; acked: string[] }> {
  const line: TranscriptLine = { uid: newUid(now), from: "commander", text, at: isoTime(now) };
  await appendLine(root, s.session, line);
  const project = projectPaths(root, s.project_path);
  const { acked } = acknowledge(project, unreadUids(project, s.session), now, pid);
  return { line, acked };
}

/** FOR-08: a pending forum wake is marked ended. */
export async function endSession(root: string, s: ForumSession, now: number): Promise<ForumSession> {
  const paths = sessionPaths(root, s.session);
  const next = { ...s, ended_at: isoTime(now) };
  await withLock(lockPath(root, paths.lock), () => saveSession(root, next));
  const project = projectPaths(root, s.project_path);
  const wake = readForumWake(project, s.session);
  if (wake) writeForumWake(project, { session: s.session, file: s.file, count: unreadCount(project, s.session), ended: true, detectedAt: now });
  return next;
}

/** FOR-05. */
export type RefusedSession = { session: string; error: unknown };

const byCreation = (a: ForumSession, b: ForumSession) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0);

export function scanSessions(root: string): { sessions: ForumSession[]; refused: RefusedSession[] } {
  const out: { sessions: ForumSession[]; refused: RefusedSession[] } = { sessions: [], refused: [] };
  let names: string[];
  try {
    names = readdirSync(forumPaths(root).sessionsDir);
  } catch {
    return out;
  }
  for (const name of names.filter(isSessionKey).sort()) {
    try {
      const s = loadSession(root, name);
      if (s) out.sessions.push(s);
    } catch (error) {
      out.refused.push({ session: name, error });
    }
  }
  out.sessions.sort(byCreation);
  return out;
}

/** A corrupt one throws. */
export function allSessions(root: string): ForumSession[] {
  const { sessions, refused } = scanSessions(root);
  if (refused[0]) throw refused[0].error;
  return sessions;
}

/** FOR-08. */
type SessionSummary = { session: string; file: string; project_path: string; unread: number; ended: boolean; last_at: string | null };

export function summarize(root: string, s: ForumSession): SessionSummary {
  const lines = readTranscript(root, s.session);
  let unread = 0;
  try {
    unread = unreadCount(projectPaths(root, s.project_path), s.session);
  } catch {
    unread = 0;
  }
  return { session: s.session, file: s.file, project_path: s.project_path, unread, ended: isEnded(s), last_at: lines.at(-1)?.at ?? null };
}

/** FOR-12: a corrupt one is refused. */
export function sessionSummaries(root: string): { sessions: SessionSummary[]; refused: RefusedSession[] } {
  const { sessions, refused } = scanSessions(root);
  const out: SessionSummary[] = [];
  for (const s of sessions) {
    try {
      out.push(summarize(root, s));
    } catch (error) {
      refused.push({ session: s.session, error });
    }
  }
  return { sessions: out, refused };
}

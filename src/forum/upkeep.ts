/**
 * The forum server's upkeep (FOR-05): completing a killed server's deliveries (FOR-01) before it listens, and
 * sweeping killed writers' temporary files (STA-05). What cannot be read is logged and left.
 */
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorMessage } from "../errors";
import { isSafeBaseName } from "../state/ids";
import { sweepTemps } from "../state/sweep";
import { knownProjects } from "./board";
import { recoverDeliveries } from "./deliver";
import { recoverBoardTalk } from "./board-talk";
import { forumPaths, isSessionKey } from "./paths";
import { type RefusedSession, recoverSession, scanSessions } from "./sessions";

type Log = (line: string) => void;
/** Logs a line the first time its kind is seen. */
type LogOnce = (kind: string, line: string) => void;

export function noteRefused(refused: readonly RefusedSession[], logOnce: LogOnce): { session: string; error: string }[] {
  const named = refused.map((r) => ({ session: r.session, error: errorMessage(r.error) }));
  for (const r of named) logOnce(`refused ${r.session}: ${r.error}`, `forum: refusing session ${r.session}: ${r.error} - the other sessions are served`);
  return named;
}

function subdirs(dir: string, keep: (name: string) => boolean): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && keep(e.name))
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

function forumTempDirs(root: string, projects: ReturnType<typeof knownProjects>): string[] {
  const fp = forumPaths(root);
  const dirs = [fp.dir, ...subdirs(fp.sessionsDir, isSessionKey)];
  for (const p of projects) dirs.push(p.forumWakesDir, ...subdirs(p.forumInboxDir, isSafeBaseName));
  return dirs;
}

export function sweepForum(root: string, now: number, minAgeMs: number, log: Log): void {
  const projects = knownProjects(root);
  const forum = sweepTemps(root, forumTempDirs(root, projects), now, minAgeMs);
  // The board conversation lives in the project's state dir, among others' files: only its own temporaries.
  const talks = projects.map((p) => p.boardTalk);
  const board = sweepTemps(root, [...new Set(talks.map((t) => dirname(t)))], now, minAgeMs, [...new Set(talks.map((t) => basename(t)))]);
  const removed = [...forum.removed, ...board.removed];
  const failed = [...forum.failed, ...board.failed];
  if (removed.length > 0) log(`forum: removed ${removed.length} temporary file(s) a killed writer left: ${removed.join(", ")}`);
  for (const f of failed) log(`forum: could not sweep temporary files in ${f}`);
}

/** Pending wakes first, then missing inbox messages. */
export function recoverForum(root: string, now: number, log: Log, logOnce: LogOnce): void {
  for (const p of knownProjects(root)) {
    const r = recoverDeliveries(p);
    if (r.rung.length > 0) log(`forum: rang the forum wake of ${r.rung.length} message(s) a stopped server had not: ${r.rung.join(", ")}`);
    for (const f of r.failed) log(`forum: could not settle the pending delivery ${f}`);
    try {
      const n = recoverBoardTalk(p, now);
      if (n > 0) log(`forum: delivered ${n} board message(s) to ${p.project} a stopped server had not`);
    } catch (err) {
      log(`forum: could not check the board conversation of ${p.project}: ${errorMessage(err)}`);
    }
  }
  const { sessions, refused } = scanSessions(root);
  noteRefused(refused, logOnce);
  for (const s of sessions) {
    try {
      const n = recoverSession(root, s, now);
      if (n > 0) log(`forum: delivered ${n} message(s) of ${s.session} a stopped server had not`);
    } catch (err) {
      log(`forum: could not check ${s.session}: ${errorMessage(err)}`);
    }
  }
}

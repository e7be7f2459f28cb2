/**
 * The board's conversation with a project's commander (FOR-09, FOR-08): a transcript like a review's, in the
 * project's state dir (`forum-board.jsonl`, which the board's look stamps), whose general's lines reach the inbox
 * as session `general`, file `board` in FOR-07's order: the line, then the delivery (deliver.ts).
 */
import type { ProjectPaths } from "../state/paths";
import type { ForumWake, TranscriptLine } from "../state/schemas";
import { isoTime } from "../time";
import { deliverMessage } from "./deliver";
import { acknowledge, hasMessage, unreadUids } from "./inbox";
import { newUid } from "./sessions";
import { appendTranscriptLine, readTranscriptFile, readTranscriptTail } from "./transcript";

/** FOR-09: the inbox's names for the board's messages. */
export const BOARD_SESSION = "general";
export const BOARD_FILE = "board";
/** FOR-13: the lines the board shows (the newest). */
export const BOARD_TALK_SHOWN = 50;

export function readBoardTalk(paths: ProjectPaths): TranscriptLine[] {
  return readTranscriptFile(paths.boardTalk);
}

/** FOR-13: the newest lines, and how many there are (only those shown are parsed: the board reads it at every change). */
export function boardTalkTail(paths: ProjectPaths): { lines: TranscriptLine[]; total: number } {
  return readTranscriptTail(paths.boardTalk, BOARD_TALK_SHOWN);
}

function deliver(paths: ProjectPaths, line: TranscriptLine, now: number): ForumWake | undefined {
  return deliverMessage(paths, { uid: line.uid, session: BOARD_SESSION, file: BOARD_FILE, text: line.text, received_at: line.at }, false, now);
}

/** FOR-07's order; the caller answers 201 only after this returns. */
export async function postOnBoard(paths: ProjectPaths, text: string, now: number): Promise<{ line: TranscriptLine; wake?: ForumWake }> {
  const line: TranscriptLine = { uid: newUid(now), from: "general", text, at: isoTime(now) };
  await appendTranscriptLine(paths.root, paths.boardTalk, paths.boardTalkLock, line);
  return { line, wake: deliver(paths, line, now) };
}

/** FOR-08: `vx forum reply board`; acknowledges every unread board message, as a review's reply does. */
export async function replyOnBoard(paths: ProjectPaths, text: string, now: number, pid: number): Promise<{ line: TranscriptLine; acked: string[] }> {
  const line: TranscriptLine = { uid: newUid(now), from: "commander", text, at: isoTime(now) };
  await appendTranscriptLine(paths.root, paths.boardTalk, paths.boardTalkLock, line);
  const { acked } = acknowledge(paths, unreadUids(paths, BOARD_SESSION), now, pid);
  return { line, acked };
}

/** FOR-05: delivers every general's line the inbox lacks (a server killed between the line and the inbox). */
export function recoverBoardTalk(paths: ProjectPaths, now: number): number {
  let repaired = 0;
  for (const line of readBoardTalk(paths)) {
    if (line.from !== "general" || hasMessage(paths, BOARD_SESSION, line.uid)) continue;
    deliver(paths, line, now);
    repaired++;
  }
  return repaired;
}

/**
 * A conversation on disk (FOR-07, FOR-09): one JSON line per message, `{uid, from, text, at}`, rewritten whole
 * (temp + rename) under its lock, so neither a reader nor a kill sees half a line. A review session's
 * transcript and the board's conversation with a project's commander are both kept this way.
 */
import { dirname } from "node:path";
import { StateError } from "../errors";
import { ensureStateDir, readStateText, writeStateFile } from "../state/files";
import { withLock } from "../state/lock";
import { mergeForSave, parseRecord } from "../state/record";
import { type TranscriptLine, TranscriptLineSchema, keysOf } from "../state/schemas";

const LINE_KEYS = keysOf(TranscriptLineSchema);

function parseLine(path: string, line: string, n: number): TranscriptLine {
  try {
    return parseRecord(path, line, TranscriptLineSchema).value;
  } catch (err) {
    throw new StateError(path, `line ${n} is not a transcript line (${(err as Error).message.split(" - ")[0]}) - vx leaves it as it is; repair it or move it aside`);
  }
}

/** The file's lines with their numbers, blank ones left out. */
function rawLines(path: string): [number, string][] {
  const text = readStateText(path) ?? "";
  return [...text.split("\n").entries()].filter(([, l]) => l.trim() !== "");
}

/** Every line, oldest first; none when the file is missing; a corrupt line throws naming the file. */
export function readTranscriptFile(path: string): TranscriptLine[] {
  return rawLines(path).map(([i, l]) => parseLine(path, l, i + 1));
}

/** The newest `n` lines parsed (a corrupt one among them throws) and how many there are: what a page shows. */
export function readTranscriptTail(path: string, n: number): { lines: TranscriptLine[]; total: number } {
  const raw = rawLines(path);
  return { lines: raw.slice(-n).map(([i, l]) => parseLine(path, l, i + 1)), total: raw.length };
}

/** The lock's directory is made first (a new session's, a new project's). */
export async function appendTranscriptLine(root: string, path: string, lock: string, line: TranscriptLine): Promise<void> {
  ensureStateDir(root, dirname(lock));
  await withLock(lock, () => {
    const before = readStateText(path) ?? "";
    const sep = before === "" || before.endsWith("\n") ? "" : "\n";
    writeStateFile(root, path, `${before}${sep}${JSON.stringify(mergeForSave(line, LINE_KEYS, undefined))}\n`);
  });
}

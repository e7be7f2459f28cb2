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

/** Every line, oldest first; none when the file is missing; a corrupt line throws naming the file. */
export function readTranscriptFile(path: string): TranscriptLine[] {
  const text = readStateText(path) ?? "";
  const out: TranscriptLine[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      out.push(parseRecord(path, line, TranscriptLineSchema).value);
    } catch (err) {
      throw new StateError(path, `line ${i + 1} is not a transcript line (${(err as Error).message.split(" - ")[0]}) - vx leaves it as it is; repair it or move it aside`);
    }
  }
  return out;
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

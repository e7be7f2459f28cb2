/**
 * Abandoned temporary files (STA-05): a writer killed between createTemp and its rename leaves its
 * `.<name>.<16 hex>.tmp` behind for good. A sweep removes, in the directories it is given, the
 * regular files of exactly that name shape last changed at least `minAgeMs` ago: a live write holds
 * its temporary for milliseconds, so one that old has no writer left (a clock stepped back only
 * makes files look younger). Nothing else is touched: a user's `.notes.tmp`, a directory or a link
 * of that name stay, and a linked directory is never entered.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../errors";
import { isTempName, refuseLinks, removeFile } from "./files";

/** The temporaries removed, and the directories that could not be swept (with why). */
type Sweep = { removed: string[]; failed: string[] };

const ABSENT = new Set(["ENOENT", "ENOTDIR"]);

export function sweepTemps(root: string, dirs: readonly string[], now: number, minAgeMs: number): Sweep {
  const out: Sweep = { removed: [], failed: [] };
  for (const dir of dirs) {
    let names: string[];
    try {
      refuseLinks(root, dir);
      names = readdirSync(dir).filter(isTempName);
    } catch (err) {
      if (!ABSENT.has((err as NodeJS.ErrnoException).code ?? "")) out.failed.push(`${dir}: ${errorMessage(err)}`);
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const st = lstatSync(path);
        if (!st.isFile() || now - st.mtimeMs < minAgeMs) continue;
        removeFile(path);
        out.removed.push(path);
      } catch (err) {
        if (!ABSENT.has((err as NodeJS.ErrnoException).code ?? "")) out.failed.push(`${path}: ${errorMessage(err)}`);
      }
    }
  }
  return out;
}

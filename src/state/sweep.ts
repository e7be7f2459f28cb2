/**
 * Abandoned temporary files (STA-05) a killed writer left: only regular files of exactly that name shape
 * and at least `minAgeMs` old (a live write holds one for milliseconds). Links are never entered or removed.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../errors";
import { isTempName, refuseLinks, removeFile } from "./files";

type Sweep = { removed: string[]; failed: string[] };

const ABSENT = new Set(["ENOENT", "ENOTDIR"]);

/** `of`: only the temporaries of these files (base names), in a directory other writers share. */
export function sweepTemps(root: string, dirs: readonly string[], now: number, minAgeMs: number, of?: readonly string[]): Sweep {
  const out: Sweep = { removed: [], failed: [] };
  for (const dir of dirs) {
    let names: string[];
    try {
      refuseLinks(root, dir);
      names = readdirSync(dir).filter((n) => isTempName(n) && (!of || of.some((base) => n.startsWith(`.${base}.`))));
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

/** Doctor's line for a commander wake template vx wrote (DOC-08's Pi line, and its twins). */
import { join } from "node:path";
import type { Check } from "../check";
import { readTextIfExists } from "../state/files";

export function wakeFileCheck(top: string, name: string, path: string, content: string, detail = ""): Check {
  const text = readTextIfExists(join(top, path));
  if (text === undefined) return { status: "warn", name, detail: "missing; run 'vx upgrade'" };
  if (text === content) return { status: "ok", name, detail: `current${detail}` };
  return { status: "warn", name, detail: "edited by hand" };
}

/** Doctor's `notify` line (WAK-14): shown only when the project's config.json sets a notifier. */
import { isAbsolute, join } from "node:path";
import { accessSync, constants } from "node:fs";
import { which } from "../exec";
import { printable } from "../printable";
import { redact } from "../redact";
import type { ProjectConfig } from "../state/schemas";
import { parseNotify } from "../wakes/notify";
import type { Check } from "../check";

const NAME = "notify";

function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** None when unset; else the command (redacted: it may carry a token) and where its program is. */
export function notifyCheck(top: string, config: ProjectConfig, path: string | undefined): Check[] {
  const parsed = parseNotify(config.notify);
  if (!parsed) return [];
  if ("error" in parsed) {
    return [{ status: "warn", name: NAME, detail: `invalid: ${parsed.error}; fix .vexillum/config.json or run 'vx init --notify <command>'` }];
  }
  const [prog] = parsed.argv;
  const shown = printable(redact(parsed.argv.join(" ")));
  // A name with a slash is a path (relative ones from the project, where the sentinel runs it).
  const found = prog.includes("/") ? (runnable(isAbsolute(prog) ? prog : join(top, prog)) ? prog : undefined) : which(prog, path);
  if (!found) {
    return [{ status: "warn", name: NAME, detail: `${shown}: ${printable(redact(prog))} not found, so you are never pinged; install it or run 'vx init --notify <command>'` }];
  }
  return [{ status: "ok", name: NAME, detail: `${shown} (${printable(found)})` }];
}

/**
 * Codex 0.171 keeps its app-server daemon's socket, with a `.lock` beside it, in /tmp/codex-daemon-<uid>
 * whatever TMPDIR says (compat/world.ts), and leaves both when the daemon stops. The run removes what it
 * left there: only entries made since the run began, a socket only when nothing answers on it, and the
 * directory only when the run made it and it is empty. Anything else there is someone else's.
 */
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

const DIR = join("/tmp", `codex-daemon-${process.getuid?.() ?? 0}`);

export type CodexDaemonSnapshot = { existed: boolean; names: Set<string> };

function names(): string[] | undefined {
  try {
    return readdirSync(DIR);
  } catch {
    return undefined;
  }
}

export function codexDaemonSnapshot(): CodexDaemonSnapshot {
  const now = names();
  return { existed: now !== undefined, names: new Set(now ?? []) };
}

/** True when something accepts a connection on the socket at `path`. */
async function answers(path: string): Promise<boolean> {
  try {
    const socket = await Bun.connect({ unix: path, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

export async function sweepCodexDaemon(before: CodexDaemonSnapshot): Promise<void> {
  const added = (names() ?? []).filter((n) => !before.names.has(n));
  for (const name of added.filter((n) => !n.endsWith(".lock"))) {
    const path = join(DIR, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isSocket() && !(await answers(path))) unlinkIfThere(path);
  }
  // A lock whose socket is gone (removed above, or by its daemon).
  for (const name of added.filter((n) => n.endsWith(".lock"))) {
    const path = join(DIR, name);
    if (!lstatSync(path.slice(0, -".lock".length), { throwIfNoEntry: false }) && lstatSync(path, { throwIfNoEntry: false })?.isFile()) unlinkIfThere(path);
  }
  if (before.existed) return;
  try {
    rmdirSync(DIR);
  } catch {
    // Not empty: a daemon still runs, or something else is there.
  }
}

/**
 * The awaiter registry (AWT-07) and verified reaping (AWT-08): pids recycle and argv can be forged, so
 * only a live, verified `vx sentinel await` proven to use this state root (another HOME's reads the same) is signalled.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Exec } from "../exec";
import { type ProcessInfo, inspectProcess, isAwaitProcess, procPlatform, processStateRoot } from "../procs";
import { expectedParent } from "./owner";
import { readStateText, removeFile, writeStateFile } from "../state/files";
import { realpathOr, rootPaths } from "../state/paths";
import { parseRecord, renderState } from "../state/record";
import { type Awaiter, AwaiterSchema } from "../state/schemas";

function recordPath(dir: string, pid: number): string {
  return join(dir, `${pid}.json`);
}

/** `dir`'s parent is the state root. */
export function registerAwaiter(dir: string, rec: Awaiter): void {
  const ordered: Awaiter = {
    pid: rec.pid,
    owner_pid: rec.owner_pid,
    ...(rec.wrapper_pids?.length ? { wrapper_pids: rec.wrapper_pids } : {}),
    project_path: rec.project_path,
    project_key: rec.project_key,
    ...(rec.herdr_pane_id ? { herdr_pane_id: rec.herdr_pane_id } : {}),
    started_at: rec.started_at,
  };
  writeStateFile(dirname(dir), recordPath(dir, rec.pid), renderState(ordered));
}

export function unregisterAwaiter(dir: string, pid: number): void {
  removeFile(recordPath(dir, pid));
}

type LiveAwaiter = { rec: Awaiter; proc: ProcessInfo };

/** The verified live awaiters; untrustworthy records are deleted unless `readOnly`. */
export async function liveAwaiters(dir: string, exec: Exec, keep?: number, readOnly = false, platformGiven?: string): Promise<LiveAwaiter[]> {
  const platform = procPlatform(exec, platformGiven);
  const drop = (path: string) => {
    if (!readOnly) removeFile(path);
  };
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch {
    return [];
  }
  const out: LiveAwaiter[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let rec: Awaiter;
    try {
      const text = readStateText(path); // a link is as untrustworthy as a malformed record
      if (text === undefined) continue;
      rec = parseRecord(path, text, AwaiterSchema).value;
    } catch {
      drop(path);
      continue;
    }
    if (name !== `${rec.pid}.json`) {
      drop(path);
      continue;
    }
    if (rec.pid === keep) continue;
    const proc = await inspectProcess(rec.pid, exec, platform);
    if (!proc || !isAwaitProcess(proc, platform)) {
      drop(path);
      continue;
    }
    out.push({ rec, proc });
  }
  return out;
}

function newer(a: Awaiter, b: Awaiter): boolean {
  const ta = Date.parse(a.started_at);
  const tb = Date.parse(b.started_at);
  return ta !== tb ? ta > tb : a.pid > b.pid;
}

/** Test seams. */
type ReapSeams = {
  signal?: (pid: number) => void;
  /** Symlinks resolved; undefined when it cannot be told. */
  rootOf?: (pid: number) => Promise<string | undefined>;
  platform?: string;
};

/** AWT-08: SIGTERM orphaned awaits and ones `self` supersedes; only those have their state root read, to keep await start cheap. */
export async function reapAwaiters(root: string, exec: Exec, self?: Awaiter, seams: ReapSeams = {}): Promise<number> {
  const dir = rootPaths(root).awaitersDir;
  const signal = seams.signal ?? term;
  const rootOf = seams.rootOf ?? ((pid: number) => processStateRoot(pid, exec, seams.platform));
  const ours = realpathOr(root);
  let count = 0;
  for (const { rec, proc } of await liveAwaiters(dir, exec, self?.pid, false, seams.platform)) {
    const orphan = proc.ppid !== expectedParent({ owner: rec.owner_pid, wrappers: rec.wrapper_pids ?? [] });
    const superseded = self !== undefined && rec.owner_pid === self.owner_pid && rec.project_path === self.project_path && newer(self, rec);
    if (!orphan && !superseded) continue;
    const theirs = await rootOf(rec.pid);
    if (theirs !== ours) {
      // Not proven ours: never signalled. Another root's: our record of that pid is stale.
      if (theirs !== undefined) removeFile(recordPath(dir, rec.pid));
      continue;
    }
    signal(rec.pid);
    count++;
  }
  return count;
}

function term(pid: number): void {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

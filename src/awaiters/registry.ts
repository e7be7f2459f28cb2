/**
 * The awaiter registry (AWT-07) and verified reaping (AWT-08). A record is trusted only when the
 * process it names is alive and its command line is a `vx sentinel await`: a pid can be recycled,
 * and vx never signals a process it has not verified, and never by name.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Exec } from "../exec";
import { type ProcessInfo, inspectProcess, isAwaitCommand } from "../procs";
import { expectedParent } from "./owner";
import { readStateText, removeFile, writeStateFile } from "../state/files";
import { parseRecord, renderState } from "../state/record";
import { type Awaiter, AwaiterSchema } from "../state/schemas";

export function recordPath(dir: string, pid: number): string {
  return join(dir, `${pid}.json`);
}

/** `dir` is the registry, `<root>/sentinel-awaiters`: its parent is the state root. */
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

/** A record with the process it names, verified as a live `vx sentinel await`. */
export type LiveAwaiter = { rec: Awaiter; proc: ProcessInfo };

/**
 * Reads every record, deleting the untrustworthy ones (malformed, misnamed, dead, or a pid now
 * running something else) unless `readOnly`, and returns the verified live awaiters.
 */
export async function liveAwaiters(dir: string, exec: Exec, keep?: number, readOnly = false): Promise<LiveAwaiter[]> {
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
    const proc = await inspectProcess(rec.pid, exec);
    if (!proc || !isAwaitCommand(proc.command)) {
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

/**
 * AWT-08: SIGTERM every verified await that is an orphan (its parent is no longer its recorded
 * owner) and, when `self` is given, every older await of the same owner and project. Returns how
 * many were signalled.
 */
export async function reapAwaiters(dir: string, exec: Exec, self?: Awaiter, signal: (pid: number) => void = term): Promise<number> {
  let count = 0;
  for (const { rec, proc } of await liveAwaiters(dir, exec, self?.pid)) {
    const orphan = proc.ppid !== expectedParent({ owner: rec.owner_pid, wrappers: rec.wrapper_pids ?? [] });
    const superseded =
      self !== undefined && rec.owner_pid === self.owner_pid && rec.project_path === self.project_path && newer(self, rec);
    if (orphan || superseded) {
      signal(rec.pid);
      count++;
    }
  }
  return count;
}

function term(pid: number): void {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // Gone between verification and the signal: nothing to stop.
  }
}

/** TSK-13: what a soldier's harness spent, read from the harness's own records; never a made-up number. */
import { closeSync, constants, openSync, readSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Env } from "../../state/paths";

export type Tokens = {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost_usd?: number;
};
export type Usage = Tokens & { source: string };
export type UsageUnknown = { unknown: string };
export type UsageResult = Usage | UsageUnknown;

/** One soldier's records: its camp (the harness's cwd), the time window it held the camp, where its private state lives. */
export type UsageQuery = {
  taskId: string;
  camp: string;
  /** Epoch ms: records before the task was created belong to an earlier tenant of the camp. */
  since: number;
  /** Epoch ms: the next task in the same camp, when there is one. */
  until: number;
  /** The task's hooks dir (Gemini CLI's private home lives there). */
  hooksDir: string;
  env: Env;
};

export type UsageReader = (q: UsageQuery) => UsageResult;

export function isKnown(u: UsageResult): u is Usage {
  return !("unknown" in u);
}

export function home(env: Env): string {
  return env.HOME || homedir();
}

/** A record's time inside the query's window (an unparsable time counts, so a record is never lost to its clock format). */
export function inWindow(q: UsageQuery, at: unknown): boolean {
  const ms = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(ms)) return true;
  return ms >= q.since && ms < q.until;
}

export function num(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0;
}

/** A running sum; `cost` only when some record had one. */
export class Tally {
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  cost: number | undefined;
  records = 0;

  add(t: { input?: unknown; output?: unknown; cacheRead?: unknown; cacheWrite?: unknown; cost?: unknown }): void {
    this.input += num(t.input);
    this.output += num(t.output);
    this.cacheRead += num(t.cacheRead);
    this.cacheWrite += num(t.cacheWrite);
    if (typeof t.cost === "number" && Number.isFinite(t.cost)) this.cost = (this.cost ?? 0) + t.cost;
    this.records++;
  }

  result(source: string, none: string): UsageResult {
    if (this.records === 0) return { unknown: none };
    return {
      input_tokens: this.input,
      output_tokens: this.output,
      cache_read_tokens: this.cacheRead,
      cache_write_tokens: this.cacheWrite,
      ...(this.cost !== undefined ? { cost_usd: Math.round(this.cost * 1e6) / 1e6 } : {}),
      source,
    };
  }
}

const CHUNK = 1 << 20;
/** A longer line (a tool result holding a whole file) is skipped: usage lines are short. */
const MAX_LINE = 8 << 20;
const NL = 10;

/**
 * Calls `fn` with each line of `path` holding `needle` (or one of them), reading 1 MiB at a time, so memory stays
 * bounded however long the transcript; only those lines are decoded and parsed (a transcript is mostly tool output).
 * Returns the number of such lines that did not parse as JSON. `fn` returning false stops the reading.
 */
export function eachJsonLine(path: string, needle: string | readonly string[], fn: (x: Record<string, unknown>) => boolean | void, maxBytes = Number.POSITIVE_INFINITY): number {
  const needles = (typeof needle === "string" ? [needle] : needle).map((n) => Buffer.from(n));
  // Non-blocking, so a FIFO in the harness's folder fails the read instead of hanging vx status.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let bad = 0;
  let stop = false;
  const line = (buf: Buffer, from: number, to: number) => {
    let x: unknown;
    try {
      x = JSON.parse(buf.toString("utf8", from, to));
    } catch {
      bad++;
      return;
    }
    if (x && typeof x === "object" && !Array.isArray(x)) stop = fn(x as Record<string, unknown>) === false;
  };
  /** The lines of `buf` up to `end` (a line's end) holding a needle; the index just after the last one looked at. */
  const scan = (buf: Buffer, end: number) => {
    let pos = 0;
    while (pos < end && !stop) {
      let hit = -1;
      for (const n of needles) {
        const at = buf.indexOf(n, pos);
        if (at !== -1 && at < end && (hit === -1 || at < hit)) hit = at;
      }
      if (hit === -1) return;
      const start = buf.lastIndexOf(NL, hit) + 1;
      let stopAt = buf.indexOf(NL, hit);
      if (stopAt === -1 || stopAt > end) stopAt = end;
      line(buf, Math.max(start, pos), stopAt);
      pos = stopAt + 1;
    }
  };
  try {
    const chunk = Buffer.alloc(CHUNK);
    let carry = Buffer.alloc(0);
    let skipping = false;
    let read = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK, null);
      if (n <= 0) break;
      read += n;
      let buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      if (skipping) {
        const nl = buf.indexOf(NL);
        if (nl === -1) {
          carry = Buffer.alloc(0);
          continue;
        }
        skipping = false;
        buf = buf.subarray(nl + 1);
      }
      const last = buf.lastIndexOf(NL);
      if (last !== -1) scan(buf, last);
      if (stop) return bad;
      // Copied: the chunk buffer is reused by the next read.
      carry = Buffer.from(buf.subarray(last + 1));
      if (carry.length > MAX_LINE) {
        carry = Buffer.alloc(0);
        skipping = true;
      }
      if (read >= maxBytes) return bad;
    }
    if (!skipping && carry.length > 0) scan(carry, carry.length);
    return bad;
  } finally {
    closeSync(fd);
  }
}

/** The first line of a file, read up to `cap` bytes; undefined when it does not parse. */
export function firstJsonLine(path: string, cap = 1 << 20): Record<string, unknown> | undefined {
  let first: Record<string, unknown> | undefined;
  try {
    eachJsonLine(
      path,
      "",
      (x) => {
        first = x;
        return false;
      },
      cap,
    );
  } catch {
    return undefined;
  }
  return first;
}

/** The `.jsonl` files (regular ones) of `dir` modified since `since` (older ones cannot hold the task's records); [] when it is missing. */
export function recentJsonl(dir: string, since: number, suffix = ".jsonl"): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    if (!n.endsWith(suffix)) continue;
    const p = join(dir, n);
    try {
      const st = statSync(p);
      if (st.isFile() && st.mtimeMs >= since) out.push(p);
    } catch {
      // Gone since the listing.
    }
  }
  return out.sort();
}

/** A regular file or a directory there (a link followed), nothing else. */
export function exists(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() || st.isDirectory();
  } catch {
    return false;
  }
}

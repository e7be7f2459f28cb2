/**
 * Server-sent events (FOR-12) and the look behind them, so any process's change reaches the pages: the look
 * compares stamps of the state files with the last look's. An atomic write renames into its directory, so
 * one stat per directory covers any number of tasks. When to look is watch.ts's business.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { projectPaths, rootPaths, stateDirPaths } from "../state/paths";
import { artifactPlace, fileStamp } from "./artifact";
import { sessionPaths } from "./paths";
import { scanSessions } from "./sessions";

export type Hub = {
  open(): Response;
  broadcast(event: string, data: unknown): void;
  clients(): number;
  /** Told the number of open pages whenever one opens or goes. */
  onClients(listener: (open: number) => void): void;
  close(): void;
};

const encoder = new TextEncoder();

export function createHub(heartbeatMs: number): Hub {
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let told: (open: number) => void = () => {};
  const gone = (c: ReadableStreamDefaultController<Uint8Array>) => {
    if (streams.delete(c)) told(streams.size);
  };
  const send = (c: ReadableStreamDefaultController<Uint8Array>, chunk: string) => {
    try {
      c.enqueue(encoder.encode(chunk));
    } catch {
      gone(c);
    }
  };
  // Keeps the stream open through proxies; a page that went away fails the write.
  const beat = setInterval(() => {
    for (const c of streams) send(c, ": beat\n\n");
  }, heartbeatMs);
  return {
    open() {
      let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          mine = c;
          streams.add(c);
          send(c, "retry: 1000\n: open\n\n");
          if (streams.has(c)) told(streams.size);
        },
        cancel() {
          if (mine) gone(mine);
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" } });
    },
    broadcast(event, data) {
      const chunk = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const c of streams) send(c, chunk);
    },
    clients: () => streams.size,
    onClients(listener) {
      told = listener;
    },
    close() {
      clearInterval(beat);
      for (const c of streams) {
        try {
          c.close();
        } catch {
          // gone
        }
      }
      streams.clear();
    },
  };
}

function mtime(path: string): string {
  try {
    // Most projects lack some of the paths: an exception each would be most of a look's cost.
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return "-";
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "-";
  }
}

/** Changes whenever anything the board shows changes on disk (FOR-09). */
function boardSignature(root: string): string {
  const rp = rootPaths(root);
  const parts = [mtime(rp.projectsDir), mtime(rp.awaitersDir)];
  let keys: string[] = [];
  try {
    keys = readdirSync(rp.projectsDir).sort();
  } catch {
    keys = [];
  }
  for (const key of keys) {
    const p = stateDirPaths(join(rp.projectsDir, key));
    for (const path of [p.stateDir, p.tasksDir, p.wakesDir, p.forumWakesDir, p.statesDir, p.commandersFile, p.boardTalk]) parts.push(mtime(path));
  }
  return parts.join("|");
}

type Stamp = { talk: string; artifact: string; file: string };

function sessionStamps(root: string): Map<string, Stamp> {
  const out = new Map<string, Stamp>();
  // A refused session has no stamp: once repaired it shows as changed.
  for (const s of scanSessions(root).sessions) {
    const p = sessionPaths(root, s.session);
    const place = artifactPlace(s, projectPaths(root, s.project_path).reportsDir);
    const file = join(place.dir, place.rel);
    out.set(s.session, { talk: `${mtime(p.transcript)}/${mtime(p.info)}`, artifact: fileStamp(file), file });
  }
  return out;
}

export function createWatch(root: string) {
  let board = boardSignature(root);
  let stamps = sessionStamps(root);
  return {
    look(): { board: boolean; sessions: string[]; artifacts: string[] } {
      const nextBoard = boardSignature(root);
      const next = sessionStamps(root);
      const sessions: string[] = [];
      const artifacts: string[] = [];
      for (const [name, st] of next) {
        const was = stamps.get(name);
        if (!was || was.talk !== st.talk) sessions.push(name);
        if (was && was.artifact !== st.artifact) artifacts.push(name);
      }
      const changed = { board: nextBoard !== board, sessions, artifacts };
      board = nextBoard;
      stamps = next;
      return changed;
    },
    /** The sessions' artifact files as of the last look (watch.ts watches their directories). */
    artifacts: (): string[] => [...stamps.values()].map((s) => s.file),
  };
}

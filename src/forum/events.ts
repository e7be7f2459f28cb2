/**
 * Server-sent events (FOR-12) driven by watching the state files, so any process's change reaches the
 * pages. An atomic write renames into its directory, so one stat per directory covers any number of tasks.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { rootPaths, stateDirPaths } from "../state/paths";
import { fileStamp } from "./artifact";
import { sessionPaths } from "./paths";
import { scanSessions } from "./sessions";

export type Hub = {
  open(): Response;
  broadcast(event: string, data: unknown): void;
  clients(): number;
  close(): void;
};

const encoder = new TextEncoder();

export function createHub(heartbeatMs: number): Hub {
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const send = (c: ReadableStreamDefaultController<Uint8Array>, chunk: string) => {
    try {
      c.enqueue(encoder.encode(chunk));
    } catch {
      streams.delete(c);
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
        },
        cancel() {
          if (mine) streams.delete(mine);
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" } });
    },
    broadcast(event, data) {
      const chunk = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const c of streams) send(c, chunk);
    },
    clients: () => streams.size,
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
    const st = statSync(path);
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
    for (const path of [p.stateDir, p.tasksDir, p.wakesDir, p.forumWakesDir, p.statesDir, p.commandersFile]) parts.push(mtime(path));
  }
  return parts.join("|");
}

function sessionStamps(root: string): Map<string, { talk: string; artifact: string }> {
  const out = new Map<string, { talk: string; artifact: string }>();
  // A refused session has no stamp: once repaired it shows as changed.
  for (const s of scanSessions(root).sessions) {
    const p = sessionPaths(root, s.session);
    out.set(s.session, { talk: `${mtime(p.transcript)}/${mtime(p.info)}`, artifact: fileStamp(join(s.project_path, s.file)) });
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
  };
}

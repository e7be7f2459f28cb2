/**
 * What tells the forum server that something changed (FOR-08, FOR-09, FOR-12): inotify (node:fs `watch`) on
 * the directories whose entries the pages show. An atomic write renames into its directory, so one watch per
 * directory covers any number of tasks, and nothing runs while nothing changes. A burst of events is one call
 * of `changed` a short settle later. The set of directories is re-armed on each call, so projects and
 * sessions that appear (or a directory replaced by another) are watched from then on. A directory that cannot
 * be watched for any reason but its absence (no inotify, the watch limit) leaves the watch unhealthy: the
 * server then looks on a timer as it did before.
 */
import { type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorMessage } from "../errors";
import { rootPaths, stateDirPaths } from "../state/paths";
import { forumPaths, isSessionKey } from "./paths";

/** A directory and the entry names in it that matter (`all`: any). */
export type Wanted = Map<string, Set<string> | "all">;

function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Every directory the look (events.ts) reads a stamp in; `artifacts` are the sessions' files. */
export function wantedDirs(root: string, artifacts: readonly string[]): Wanted {
  const want: Wanted = new Map();
  const add = (dir: string, name?: string) => {
    const have = want.get(dir);
    if (have === "all") return;
    if (name === undefined) want.set(dir, "all");
    else want.set(dir, new Set([...(have ?? []), name]));
  };
  const rp = rootPaths(root);
  const sessionsDir = forumPaths(root).sessionsDir;
  // The root only for the three directories below appearing.
  for (const dir of [rp.projectsDir, rp.awaitersDir, sessionsDir]) add(dirname(dir), basename(dir));
  add(rp.projectsDir);
  add(rp.awaitersDir);
  add(sessionsDir);
  for (const key of names(rp.projectsDir)) {
    const p = stateDirPaths(join(rp.projectsDir, key));
    // The state dir holds `commanders.json` and `project.json`; `wakes/` holds `forum/`.
    for (const dir of [p.stateDir, p.tasksDir, p.wakesDir, p.forumWakesDir, p.statesDir, dirname(p.commandersFile)]) add(dir);
  }
  for (const name of names(sessionsDir).filter(isSessionKey)) add(join(sessionsDir, name));
  // An artifact's directory may be busy (a project's root): only the artifact's own name counts.
  for (const file of artifacts) add(dirname(file), basename(file));
  return want;
}

/** `stale`: its parent saw its entry change (a directory replaced may get the old inode number back). */
type Armed = { watcher: FSWatcher; ino: string; stale?: boolean };

export type DirWatch = {
  /** Watches what `want` names (closing the rest); a missing directory is skipped, its parent tells when it appears. */
  arm(want: Wanted): void;
  /** Stops watching (no page open). */
  close(): void;
  armed(): boolean;
  /** False while some directory could not be watched (the server then looks on a timer). */
  healthy(): boolean;
  count(): number;
};

export function createDirWatch(settleMs: number, changed: () => void, problem: (line: string) => void): DirWatch {
  const armed = new Map<string, Armed>();
  let want: Wanted = new Map();
  let on = false;
  let failed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Coalesces a burst: the first event starts the settle, later ones ride along (never postponed past it).
  const poke = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      if (on) changed();
    }, settleMs);
  };
  const drop = (dir: string) => {
    armed.get(dir)?.watcher.close();
    armed.delete(dir);
  };
  const inode = (dir: string): string | undefined => {
    try {
      const st = statSync(dir, { throwIfNoEntry: false });
      return st?.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    arm(next) {
      on = true;
      want = next;
      failed = false;
      for (const dir of [...armed.keys()]) if (!want.has(dir)) drop(dir);
      for (const dir of want.keys()) {
        const ino = inode(dir);
        const have = armed.get(dir);
        if (have && have.ino === ino && !have.stale) continue;
        if (have) drop(dir);
        if (ino === undefined) continue;
        try {
          const watcher = watch(dir, { persistent: false }, (_event, name) => {
            const child = typeof name === "string" ? armed.get(join(dir, name)) : undefined;
            if (child) child.stale = true;
            const only = want.get(dir);
            if (only === "all" || (typeof name === "string" && only?.has(name))) poke();
          });
          watcher.on("error", (err) => {
            problem(`forum: the watch of ${dir} failed (${errorMessage(err)}) - looking on a timer until it is watched again`);
            // No poke: a watch failing again at once would loop; the server's timed look takes over.
            failed = true;
            if (armed.get(dir)?.watcher === watcher) drop(dir);
          });
          armed.set(dir, { watcher, ino });
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          // Gone between the stat and the watch: its parent's event re-arms it.
          if (code === "ENOENT" || code === "ENOTDIR") continue;
          problem(`forum: cannot watch ${dir} (${errorMessage(err)}) - looking on a timer instead`);
          failed = true;
        }
      }
    },
    close() {
      on = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const dir of [...armed.keys()]) drop(dir);
    },
    armed: () => on,
    healthy: () => on && !failed,
    count: () => armed.size,
  };
}

/** The board's facts (FOR-09, FOR-12 `/api/board`). Read-only: nothing here writes state. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { liveAwaiters } from "../awaiters/registry";
import { registeredPane } from "../backends";
import { readCommanders } from "../commanders/check";
import type { Exec } from "../exec";
import { errorMessage } from "../errors";
import { readStateText } from "../state/files";
import { type ProjectPaths, rootPaths, stateDirPaths } from "../state/paths";
import { readProjectPath } from "../state/project-record";
import type { Loaded } from "../state/record";
import type { Task } from "../state/schemas";
import { listTasks, sortTasks } from "../state/tasks";
import { GUARDS } from "../time";
import { listWakeNames } from "../wakes/queue";
import { type CurrencyLookups, forumWakeCurrent, soldierWakeCurrent } from "../wakes/currency";
import { currencyLookups } from "../wakes/deliver";
import { parseRecord } from "../state/record";
import { ForumWakeSchema, SoldierWakeSchema } from "../state/schemas";
import { scoutReports } from "../lifecycle/observe";
import { leasedTasks } from "../camps/pool";
import { shownState } from "../state/shown";
import type { BackendDeps } from "../backends";
import type { TranscriptLine } from "../state/schemas";
import { realClock } from "../time";
import { boardTalkTail } from "./board-talk";
import { type AgentsCache, type Listening, cachedAgents, listeningIn } from "./listening";
import type { UsageResult, UsageTotal } from "../cost";
import type { Env } from "../state/paths";
import { type UsageCache, boardTotal, projectUsage } from "./card-usage";

/** The pool's leases; undefined when it cannot be read (then nothing is inferred from them). */
function leasedOrUnknown(paths: ProjectPaths): Set<string> | undefined {
  try {
    return leasedTasks(paths);
  } catch {
    return undefined;
  }
}

const OUTPUT_LINES = 12;

type BoardTask = Record<string, unknown> & {
  id: string;
  /** TSK-12: `landed`, `struck`, else the status. */
  state: string;
  first_line: string;
  output_tail: string[];
  question?: string;
  diff_stat?: string;
  report_path?: string;
  /** TSK-13: what its soldier spent, or why that is unknown. */
  usage?: UsageResult;
};

type BoardProject = {
  project_path: string;
  key: string;
  tasks: BoardTask[];
  wakes: BoardWake[];
  awaits: { pid: number; started_at: string }[];
  commanders: { harness: string; pane: string }[];
  /** FOR-09: whether a message sent now reaches a commander (listening.ts). */
  listening: Listening;
  /** FOR-13: the board's conversation with the commander, its newest lines, and how many there are. */
  talk: TranscriptLine[];
  talk_total: number;
  /** TSK-14 over the project's tasks. */
  usage_total?: UsageTotal;
  error?: string;
};

/** What deciding who listens needs (listening.ts); the server passes its own. */
export type ListenCtx = { deps: BackendDeps; agents: AgentsCache };

/** Cached while the task file is unchanged. */
export type DiffCache = Map<string, { at: number; stat: string | undefined }>;

async function diffStat(exec: Exec, project: string, task: Task, cache: DiffCache, now: number): Promise<string | undefined> {
  if (!task.camp_branch || !task.camp_base) return undefined;
  const key = `${task.id}:${task.updated_at}`;
  const hit = cache.get(key);
  // A soldier commits without saving its task: look again now and then, not at every change.
  if (hit && now - hit.at < GUARDS.boardDiffFresh) return hit.stat;
  const res = await exec.run(["git", "diff", "--shortstat", `${task.camp_base}...${task.camp_branch}`, "--"], { cwd: project, timeoutMs: GUARDS.gitQuery });
  const stat = res.code === 0 ? res.stdout.trim() || "no changes" : undefined;
  cache.set(key, { at: now, stat });
  // So a long-lived server does not grow.
  if (cache.size > 2000) for (const [k, v] of cache) if (now - v.at > GUARDS.boardDiffForget) cache.delete(k);
  return stat;
}

function openQuestion(task: Task): string | undefined {
  const d = task.decision;
  if (!d || d.answer || d.dismissed) return undefined;
  return d.options?.length ? `${d.question} [${d.options.join(" / ")}]` : d.question;
}

function boardTask(t: Loaded<Task>, paths: ProjectPaths, leased: ReadonlySet<string> | undefined): BoardTask {
  const lines = (t.value.output ?? "").replace(/\s+$/, "").split("\n");
  const report = scoutReports(paths, [t.value])[t.value.id];
  return {
    ...t.raw,
    id: t.value.id,
    state: shownState(t.value, leased),
    first_line:
      t.value.prompt
        .split("\n")
        .find((l) => l.trim() !== "")
        ?.trim() ?? "",
    output_tail: t.value.output ? lines.slice(-OUTPUT_LINES) : [],
    ...(openQuestion(t.value) ? { question: openQuestion(t.value) } : {}),
    ...(report ? { report_path: report } : {}),
  };
}

type BoardWake = { name: string; text: string; task_id?: string; note?: string };

/**
 * Only the wakes still true (WAK-09, WAK-10: the deliverers' own test), read without claiming them: a stale one
 * (its task moved on, landed or struck; its messages acknowledged) is no news to the general either.
 */
async function trueWakes(paths: ProjectPaths, currency: CurrencyLookups): Promise<BoardWake[]> {
  const out: BoardWake[] = [];
  const ctx = { ...currency, stateDir: paths.stateDir };
  for (const name of namesIn(paths.wakesDir)) {
    const w = readWake(join(paths.wakesDir, name), (p, t) => parseRecord(p, t, SoldierWakeSchema).value);
    if (w === null) continue;
    if (w && !(await soldierWakeCurrent(w, ctx).catch(() => true))) continue;
    if (!w) out.push({ name, text: name });
    else out.push({ name, text: `${w.kind} ${w.task_id}: ${w.old_status} -> ${w.new_status}`, task_id: w.task_id, ...(w.note ? { note: w.note } : {}) });
  }
  for (const name of namesIn(paths.forumWakesDir)) {
    const w = readWake(join(paths.forumWakesDir, name), (p, t) => parseRecord(p, t, ForumWakeSchema).value);
    if (w === null) continue;
    const count = w ? forumWakeCurrent(w, paths.forumInboxDir) : 1;
    if (count === 0) continue;
    out.push({ name, text: w ? `forum session ${w.file}: ${count} new message${count === 1 ? "" : "s"} (ended: ${w.ended})` : name });
  }
  return out;
}

function namesIn(dir: string): string[] {
  try {
    return listWakeNames(dir);
  } catch {
    return [];
  }
}

/** null: gone meanwhile; undefined: unreadable or corrupt (shown by name: a deliverer will report it). */
function readWake<T>(path: string, parse: (path: string, text: string) => T): T | undefined | null {
  try {
    const text = readStateText(path);
    if (text === undefined) return null;
    return parse(path, text);
  } catch {
    return undefined;
  }
}

/** A state dir whose `project.json` names its path. */
export function knownProjects(root: string): ProjectPaths[] {
  const dir = rootPaths(root).projectsDir;
  let keys: string[];
  try {
    keys = readdirSync(dir)
      .filter((k) => !k.startsWith("."))
      .sort();
  } catch {
    return [];
  }
  const out: ProjectPaths[] = [];
  for (const key of keys) {
    const stateDir = join(dir, key);
    const project = readProjectPath(stateDir);
    if (project) out.push(stateDirPaths(stateDir, project));
  }
  return out;
}

/** The usage's side: the environment the harnesses' records are found under (the server's, as `vx status`'s) and its cache. */
export type UsageLook = { env: Env; cache: UsageCache };

export async function boardData(
  root: string,
  exec: Exec,
  cache: DiffCache,
  now: number,
  listen: ListenCtx = { deps: { exec, clock: realClock, env: {} }, agents: { at: 0 } },
  usage?: UsageLook,
): Promise<{ projects: BoardProject[]; usage_total?: UsageTotal }> {
  const agents = cachedAgents(listen.agents, listen.deps, now);
  const real = currencyLookups(root, exec);
  // The landed test runs git: at most every 10 s per task version, as the diff stat, not at every change.
  const currency: CurrencyLookups = {
    ...real,
    isLanded: async (t) => {
      const key = `landed:${t.id}:${t.updated_at}`;
      const hit = cache.get(key);
      if (hit && now - hit.at < GUARDS.boardDiffFresh) return hit.stat === undefined ? undefined : hit.stat === "yes";
      const landed = await real.isLanded(t);
      cache.set(key, { at: now, stat: landed === undefined ? undefined : landed ? "yes" : "no" });
      return landed;
    },
  };
  const awaiters = await liveAwaiters(rootPaths(root).awaitersDir, exec, undefined, true).catch(() => []);
  const projects: BoardProject[] = [];
  const spent: Record<string, UsageResult>[] = [];
  for (const paths of knownProjects(root)) {
    const entry: BoardProject = {
      project_path: paths.project,
      key: paths.key,
      tasks: [],
      wakes: await trueWakes(paths, currency),
      awaits: [],
      commanders: [],
      listening: { listening: false },
      talk: [],
      talk_total: 0,
    };
    try {
      const tasks = sortTasks(listTasks(paths));
      const leased = leasedOrUnknown(paths);
      const used = usage
        ? projectUsage(
            paths,
            tasks.map((t) => t.value),
            usage.env,
            usage.cache,
            now,
          )
        : undefined;
      if (used && tasks.length > 0) {
        spent.push(used);
        entry.usage_total = boardTotal([used]);
      }
      entry.tasks = await Promise.all(
        tasks.map(async (t) => {
          const bt: BoardTask = { ...boardTask(t, paths, leased), ...(used?.[t.value.id] ? { usage: used[t.value.id] } : {}) };
          const stat = await diffStat(exec, paths.project, t.value, cache, now).catch(() => undefined);
          return stat ? { ...bt, diff_stat: stat } : bt;
        }),
      );
    } catch (err) {
      entry.error = errorMessage(err);
    }
    entry.awaits = awaiters.filter((a) => a.rec.project_key === paths.key).map((a) => ({ pid: a.rec.pid, started_at: a.rec.started_at }));
    try {
      const reg = readCommanders(paths);
      entry.commanders = Object.entries(reg?.commanders ?? {}).map(([harness, c]) => ({ harness, pane: registeredPane(c) }));
    } catch (err) {
      entry.error = entry.error ?? errorMessage(err);
    }
    entry.listening = await listeningIn(root, paths, entry.awaits.length, listen.deps, agents);
    try {
      const talk = boardTalkTail(paths);
      entry.talk = talk.lines;
      entry.talk_total = talk.total;
    } catch (err) {
      entry.error = entry.error ?? errorMessage(err);
    }
    projects.push(entry);
  }
  return spent.length > 0 ? { projects, usage_total: boardTotal(spent) } : { projects };
}

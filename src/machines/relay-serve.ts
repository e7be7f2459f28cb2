/**
 * `vx machine relay <self_id>` on a machine (MCH-08): a stream of the tasks and wakes of the projects one commander's
 * state root keeps here, one JSON line each, read by that root's sentinel over ssh. A wake is deleted here only when
 * an ack for it comes back (the other side committed it first), and only the very wake acked (the same `detected_at`).
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import * as v from "valibot";
import type { Deps } from "../deps";
import { EXIT } from "../exit-codes";
import { normalJit } from "../jit";
import { readProjectPath } from "../state/project-record";
import { type ProjectPaths, REMOTES_REL, projectStateDirs, realpathOr, stateDirPaths, stateRoot } from "../state/paths";
import { readStateText } from "../state/files";
import { parseRecord } from "../state/record";
import { SoldierWakeSchema } from "../state/schemas";
import { isTaskId } from "../state/ids";
import { scaled } from "../time";
import { VERSION } from "../version";
import { ensureSentinel } from "../sentinel/ensure";
import { claimWake, deleteClaim, listWakeNames, putBackClaim } from "../wakes/queue";

export const AckSchema = v.object({ ack: v.string(), task_id: v.string(), detected_at: v.string() });
export type Ack = v.InferOutput<typeof AckSchema>;
const AskSchema = v.object({ ask: v.string(), ids: v.array(v.string()) });
export type Ask = v.InferOutput<typeof AskSchema>;

/** The projects kept here for `selfId`, by the key of the project on the commander's machine (the clone's parent dir). */
function keptProjects(root: string, home: string, selfId: string): Map<string, ProjectPaths> {
  const base = join(realpathOr(home), REMOTES_REL, selfId);
  const out = new Map<string, ProjectPaths>();
  for (const dir of projectStateDirs(root)) {
    const project = readProjectPath(dir);
    if (!project?.startsWith(base + sep)) continue;
    const key = relative(base, project).split(sep)[0];
    if (key) out.set(key, stateDirPaths(dir, project));
  }
  return out;
}

function taskText(paths: ProjectPaths, id: string): unknown {
  const text = readStateText(join(paths.tasksDir, `${id}.json`));
  return text === undefined ? undefined : JSON.parse(text);
}

function stamp(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return undefined;
  }
}

/** One look at every kept project: each task whose file changed since it was sent, each wake not sent yet (after its task). */
function scan(root: string, home: string, selfId: string, sent: Map<string, string>, emit: (line: object) => void): Map<string, ProjectPaths> {
  const kept = keptProjects(root, home, selfId);
  for (const [key, paths] of kept) {
    let names: string[] = [];
    try {
      names = readdirSync(paths.tasksDir).filter((n) => n.endsWith(".json") && isTaskId(n.slice(0, -5)));
    } catch {
      // no tasks yet
    }
    for (const name of names) {
      const path = join(paths.tasksDir, name);
      const now = stamp(path);
      if (!now || sent.get(path) === now) continue;
      try {
        emit({ t: "task", key, project: paths.project, task: taskText(paths, name.slice(0, -5)) });
        sent.set(path, now);
      } catch {
        // unreadable or half-replaced: the next look tries again
      }
    }
    for (const name of listWakeNames(paths.wakesDir)) {
      const path = join(paths.wakesDir, name);
      try {
        const wake = parseRecord(path, readStateText(path) ?? "", SoldierWakeSchema).value;
        if (sent.get(path) === wake.detected_at) continue;
        // The task as it is now, first: the other side saves it before the wake becomes visible there (WAK-05).
        emit({ t: "task", key, project: paths.project, task: taskText(paths, wake.task_id) });
        emit({ t: "wake", key, wake });
        sent.set(path, wake.detected_at);
      } catch {
        // a forum wake's name, or a wake being replaced: not relayed
      }
    }
  }
  return kept;
}

/**
 * The other side asks which of its tasks in flight this machine still has: the answer names those it has no file of
 * (its state root wiped or replaced), looked up now, so it is never older than the question.
 */
export function answerAsk(kept: Map<string, ProjectPaths>, ask: Ask): object {
  const paths = kept.get(ask.ask);
  const has = (id: string) => paths !== undefined && [`${id}.json`, `archive/${id}.json`].some((f) => readStateText(join(paths.tasksDir, f)) !== undefined);
  const missing = ask.ids.filter((id) => isTaskId(id) && !has(id));
  return { t: "missing", key: ask.ask, ids: missing };
}

/** Deletes the acked wake when it is still the one acked; a newer one stays for the next look. */
export function applyAck(kept: Map<string, ProjectPaths>, ack: Ack, sent: Map<string, string>): void {
  const paths = kept.get(ack.ack);
  if (!paths || !isTaskId(ack.task_id)) return;
  const claimed = claimWake(paths.wakesDir, `${ack.task_id}.json`);
  if (!claimed) return;
  let same = false;
  try {
    same = parseRecord(claimed, readStateText(claimed) ?? "", SoldierWakeSchema).value.detected_at === ack.detected_at;
  } catch {
    same = false;
  }
  if (same) {
    deleteClaim(claimed);
    sent.delete(join(paths.wakesDir, `${ack.task_id}.json`));
  } else putBackClaim(claimed);
}

const MAX_LINE = 1024 * 1024;

/** Looks between two checks that the machine's sentinel runs (each check reads its lock and files). */
const ENSURE_EVERY = 10;

export async function serveRelay(deps: Deps, selfId: string): Promise<number> {
  const root = stateRoot(deps.env);
  const sent = new Map<string, string>();
  let open = true;
  const emit = (line: object) => {
    if (!deps.stdout.write(`${JSON.stringify(line)}\n`)) open = false;
  };
  const home = deps.env.HOME ?? "";
  let kept = keptProjects(root, home, selfId);
  const acks: Ack[] = [];
  const asks: Ask[] = [];
  let wake: (() => void) | undefined;
  // Acks arrive on stdin; its end (the link or the sentinel gone) ends the stream.
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of Bun.stdin.stream()) {
      buffer += Buffer.from(chunk).toString("utf8");
      // An ack or a question is a short line: one past this is not the relay's, and the stream ends.
      if (buffer.length > MAX_LINE) break;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const json = safeJson(line);
        const ack = v.safeParse(AckSchema, json);
        if (ack.success) acks.push(ack.output);
        const ask = v.safeParse(AskSchema, json);
        if (ask.success) asks.push(ask.output);
      }
      wake?.();
    }
    open = false;
    wake?.();
  })();
  emit({ t: "hello", version: VERSION });
  normalJit();
  const interval = scaled("relayPoll", deps.env);
  for (let look = 0; open; look++) {
    for (const ack of acks.splice(0)) applyAck(kept, ack, sent);
    kept = scan(root, home, selfId, sent, emit);
    for (const ask of asks.splice(0)) emit(answerAsk(kept, ask));
    // The machine's sentinel is what writes the wakes: one killed or lost in a reboot is started again, as an await does.
    if (kept.size > 0 && look % ENSURE_EVERY === 0) ensureSentinel(deps, root, { quiet: true });
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, interval);
    });
  }
  for (const ack of acks.splice(0)) applyAck(kept, ack, sent);
  reading.catch(() => undefined);
  return EXIT.ok;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

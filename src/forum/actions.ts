/**
 * The board's actions (FOR-14): land, decide, resume and redispatch from the browser. Each runs the command itself
 * (`vx land <id>` and so on, this vx's own argv) in the project's checkout, as the general would in a terminal: the
 * same checks, locks and output. A child, not a call in this process: a task's lock is a blocking flock that would
 * stop the server's every page while a command in a terminal holds it, and one process running two commands at once
 * would share their in-process lock bookkeeping.
 */
import { existsSync } from "node:fs";
import { EXEC_TIMED_OUT, type Exec } from "../exec";
import { EXIT, errorMessage } from "../errors";
import { isTaskId } from "../state/ids";
import type { Env, ProjectPaths } from "../state/paths";
import { taskPath } from "../state/tasks";
import { GUARDS } from "../time";
import { knownProjects } from "./board";

export const ACTIONS = ["land", "decide", "resume", "redispatch"] as const;
export type Action = (typeof ACTIONS)[number];

export function isAction(x: string): x is Action {
  return (ACTIONS as readonly string[]).includes(x);
}

export type ActionCtx = { root: string; exec: Exec; self: string[]; env: Env; log(line: string): void };

/** FOR-14's answer: the command's own output, and its refusal when it refused. */
export type ActionReply = { status: number; body: { ok: boolean; exit?: number; output: string; error: string } };

/** What the page shows of a command's output: its end, where the outcome is. */
const SHOWN_CHARS = 16 * 1024;

/** What the server holds of a command's stdout and of its stderr while it runs: their ends, read as they come. */
const READ_BYTES = 4 * SHOWN_CHARS;

function tail(text: string): string {
  const t = text.replace(/\s+$/, "");
  return t.length > SHOWN_CHARS ? `[... the first ${t.length - SHOWN_CHARS} characters are cut]\n${t.slice(-SHOWN_CHARS)}` : t;
}

const refused = (status: number, error: string): ActionReply => ({ status, body: { ok: false, output: "", error } });

/** HTTP statuses, named: an HTTP status is never an exit code (ENV-08). */
const HTTP = { ok: 200, badRequest: 400, conflict: 409, timedOut: 504 } as const;

/** The command's exit code as HTTP: 0 done, 64 a request the command calls malformed, else a refusal (or the guard). */
function statusOf(code: number): number {
  if (code === EXIT.ok) return HTTP.ok;
  if (code === EXIT.usage) return HTTP.badRequest;
  if (code === EXEC_TIMED_OUT) return HTTP.timedOut;
  return HTTP.conflict;
}

/**
 * The checks before anything touches a path (FOR-14, FOR-15): a project the state root knows, a task id of TSK-02's
 * shape that it holds. Every board request about one task starts here.
 */
export function taskOfRequest(root: string, body: Record<string, unknown>): { paths: ProjectPaths; id: string } | ActionReply {
  const { project_path: path, task_id: id } = body;
  if (typeof path !== "string" || typeof id !== "string") return refused(400, 'the body must name the task: {"project_path", "task_id"}');
  if (!isTaskId(id)) return refused(400, `"${id.slice(0, 40)}" is not a task id (16 hex characters)`);
  const paths = knownProjects(root).find((p) => p.project === path);
  if (!paths) return refused(404, "the forum knows no such project");
  if (!existsSync(taskPath(paths, id))) return refused(404, `project ${paths.project} has no task ${id}`);
  return { paths, id };
}

function target(ctx: ActionCtx, action: Action, body: Record<string, unknown>): { project: string; id: string; stdin?: string } | ActionReply {
  const found = taskOfRequest(ctx.root, body);
  if ("status" in found) return found;
  const { paths, id } = found;
  const { answer } = body;
  if (!existsSync(paths.project)) return refused(409, `the project's checkout ${paths.project} is not there any more`);
  if (action !== "decide") return { project: paths.project, id };
  if (typeof answer !== "string" || answer.trim() === "") return refused(400, "write an answer first");
  return { project: paths.project, id, stdin: answer };
}

/** The command line of an action; an answer goes on stdin (`--stdin`), never into argv. */
function argvOf(action: Action, id: string): string[] {
  return action === "decide" ? ["decide", id, "--stdin"] : [action, id];
}

export async function runAction(ctx: ActionCtx, action: Action, body: Record<string, unknown>): Promise<ActionReply> {
  const t = target(ctx, action, body);
  if ("status" in t) return t;
  const words = argvOf(action, t.id);
  let res: Awaited<ReturnType<Exec["run"]>>;
  try {
    res = await ctx.exec.run([...ctx.self, ...words], { cwd: t.project, env: ctx.env, stdin: t.stdin ?? "", timeoutMs: GUARDS.forumAction, tailBytes: READ_BYTES });
  } catch (err) {
    ctx.log(`forum: vx ${words.join(" ")} could not run: ${errorMessage(err)}`);
    return refused(500, `vx ${action} could not run: ${errorMessage(err)}`);
  }
  ctx.log(`forum: the board ran vx ${words.join(" ")} in ${t.project}: exit ${res.code}`);
  const status = statusOf(res.code);
  if (res.code === EXEC_TIMED_OUT) {
    const error = `vx ${action} did not end within ${GUARDS.forumAction / 60_000} minutes and was stopped - see 'vx status' in ${t.project}`;
    return { status, body: { ok: false, exit: res.code, output: tail(`${res.stdout}${res.stderr}`), error } };
  }
  if (status === HTTP.ok) return { status, body: { ok: true, exit: res.code, output: tail(`${res.stdout}${res.stderr}`), error: "" } };
  const error = tail(res.stderr) || `vx ${action} exited ${res.code}`;
  return { status, body: { ok: false, exit: res.code, output: tail(res.stdout), error } };
}

/** Doctor's tmux lines (DOC-04). */
import type { Check } from "../../check";
import type { Deps } from "../../deps";
import type { Exec } from "../../exec";
import type { Pool, Task } from "../../state/schemas";
import { GUARDS } from "../../time";
import { identify, tmuxFor } from "./soldier";
import { findPane } from "./survey";
import type { TmuxPane } from "./client";

/** The tmux backend passes each soldier's environment with `new-session -e`, new in tmux 3.2. */
const TMUX_MIN = [3, 2] as const;

export function parseTmuxVersion(text: string): [number, number] | undefined {
  const m = /^tmux (?:next-)?(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export async function tmuxVersionCheck(deps: Deps, tmux: string): Promise<Check> {
  const res = await deps.exec.run([tmux, "-V"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const version = parseTmuxVersion(res.stdout);
  const shown = res.stdout.trim().replace(/^tmux /, "") || res.stderr.trim() || `exit ${res.code}`;
  if (!version) return { status: "warn", name: "tmux version", detail: `could not read it from 'tmux -V' (${shown})` };
  const [maj, min] = version;
  if (maj > TMUX_MIN[0] || (maj === TMUX_MIN[0] && min >= TMUX_MIN[1])) return { status: "ok", name: "tmux version", detail: shown };
  return { status: "missing", name: "tmux version", detail: `${shown} is older than ${TMUX_MIN.join(".")}, which the tmux backend needs - upgrade tmux`, required: true };
}

/** Soldiers alive whose camp is back in the pool, where the next lease would share their worktree; unreachable servers skipped. */
export async function unleasedHarnesses(pool: Pool, tasks: Task[], exec: Exec, env: Record<string, string | undefined>): Promise<string[]> {
  const leased = new Set(pool.slots.map((s) => s.leased_by).filter(Boolean));
  const loose = tasks.filter((t) => (t.tmux_target || t.tmux_pane_id) && t.status !== "pending" && !leased.has(t.id));
  const panes = new Map<string, TmuxPane[] | undefined>();
  const out: string[] = [];
  for (const t of loose) {
    const key = t.tmux_socket ?? "";
    const tmux = tmuxFor(exec, env, t);
    if (!panes.has(key)) panes.set(key, await tmux.listPanes().catch(() => undefined));
    const pane = findPane(t, panes.get(key) ?? []);
    if (!pane || pane.dead) continue;
    const who = await identify(tmux, t, "kill").catch(() => undefined);
    if (who?.is !== "ours") continue;
    const server = t.tmux_socket ? `tmux -S ${t.tmux_socket}` : "tmux";
    out.push(`task ${t.id}'s harness still runs in tmux session ${pane.session} (${who.sessionId}) though its camp is back in the pool - stop it: ${server} kill-session -t '${who.sessionId}'`);
  }
  return out;
}

/**
 * Doctor's checks of the terminal backends (DOC-04): each backend's program on PATH (required for
 * the project's backend, optional otherwise), herdr's version and server, tmux's version; and tmux
 * soldiers still running in a camp the pool took back.
 */
import type { Check } from "../check";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { which } from "../exec";
import { GUARDS } from "../time";
import { herdrVersionNote, parseHerdrVersion } from "./herdr-version";
import type { Exec } from "../exec";
import type { Pool, Task } from "../state/schemas";
import { type BackendName, backendOf } from "./names";
import { findPane } from "./soldiers";
import type { TmuxPane } from "./tmux";
import { identify, tmuxFor } from "./tmux-soldier";

async function herdrChecks(deps: Deps, herdr: string): Promise<Check[]> {
  const out: Check[] = [];
  const ver = await deps.exec.run([herdr, "--version"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const parsed = ver.code === 0 ? parseHerdrVersion(ver.stdout) : undefined;
  if (!parsed) {
    const why = ver.code === 0 ? `unexpected output ${JSON.stringify(ver.stdout.trim())}` : ver.stderr.trim() || `exit ${ver.code}`;
    out.push({ status: "warn", name: "herdr version", detail: `could not determine herdr version: ${why}` });
  } else if (!parsed.supported) {
    out.push({ status: "warn", name: "herdr version", detail: herdrVersionNote(parsed) });
  } else {
    out.push({ status: "ok", name: "herdr version", detail: herdrVersionNote(parsed) });
  }
  const st = await deps.exec.run([herdr, "status", "server", "--json"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  try {
    const doc = JSON.parse(st.stdout) as { running?: boolean; compatible?: boolean; protocol?: number };
    if (!doc.running) out.push({ status: "warn", name: "herdr server", detail: "not running" });
    else if (doc.compatible === false) {
      out.push({ status: "warn", name: "herdr server", detail: "not compatible with this herdr CLI; restart the herdr server" });
    } else out.push({ status: "ok", name: "herdr server", detail: `running (protocol ${doc.protocol})` });
  } catch (err) {
    const why = st.stderr.trim() || errorMessage(err);
    out.push({ status: "warn", name: "herdr server", detail: `could not read its status: ${why}` });
  }
  return out;
}

/** The tmux backend passes each soldier's environment with `new-session -e`, new in tmux 3.2. */
export const TMUX_MIN = [3, 2] as const;

export function parseTmuxVersion(text: string): [number, number] | undefined {
  const m = /^tmux (?:next-)?(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

async function tmuxVersionCheck(deps: Deps, tmux: string): Promise<Check> {
  const res = await deps.exec.run([tmux, "-V"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const version = parseTmuxVersion(res.stdout);
  const shown = res.stdout.trim().replace(/^tmux /, "") || res.stderr.trim() || `exit ${res.code}`;
  if (!version) return { status: "warn", name: "tmux version", detail: `could not read it from 'tmux -V' (${shown})` };
  const [maj, min] = version;
  if (maj > TMUX_MIN[0] || (maj === TMUX_MIN[0] && min >= TMUX_MIN[1])) return { status: "ok", name: "tmux version", detail: shown };
  return { status: "missing", name: "tmux version", detail: `${shown} is older than ${TMUX_MIN.join(".")}, which the tmux backend needs - upgrade tmux`, required: true };
}


type ToolChecks = (deps: Deps, exe: string, configured: boolean) => Promise<Check[]>;

/** What each backend checks once its program is found. */
const FOUND: Record<BackendName, ToolChecks> = {
  herdr: (deps, exe) => herdrChecks(deps, exe),
  tmux: async (deps, exe, configured) => (configured ? [await tmuxVersionCheck(deps, exe)] : []),
};

/** Every backend's lines, in DOC-04 order; `backend` is the project's (it alone is required). */
export async function backendToolChecks(deps: Deps, backend: BackendName): Promise<Check[]> {
  const out: Check[] = [];
  for (const name of Object.keys(FOUND) as BackendName[]) {
    const found = which(name, deps.env.PATH);
    if (found) {
      out.push({ status: "ok", name, detail: found });
      out.push(...(await FOUND[name](deps, found, backend === name)));
    } else if (backend === name) {
      // Required, and how to get past it: install it, or take the backend that is there.
      const other = (Object.keys(FOUND) as BackendName[]).find((b) => b !== name && which(b, deps.env.PATH));
      const fix = `install ${name}${other ? `, or use ${other}: vx init --backend ${other}` : ""}`;
      out.push({ status: "missing", name, detail: `${name} not found in PATH (required, the soldiers' terminal) - ${fix}`, required: true });
    }
    else out.push({ status: "missing", name, detail: `${name} not found in PATH (optional, for the ${name} backend)` });
  }
  return out;
}

/**
 * tmux soldiers still alive though their task no longer holds its camp (a launch killed before it
 * recorded its session, whose camp a strike then returned): the next dispatch leased there would
 * share the worktree with them. One `list-panes` per server the tasks name; a pane found is
 * verified as the task's before it is reported. A server that cannot be asked is skipped.
 */
export async function unleasedHarnesses(pool: Pool, tasks: Task[], exec: Exec, env: Record<string, string | undefined>): Promise<string[]> {
  const leased = new Set(pool.slots.map((s) => s.leased_by).filter(Boolean));
  const loose = tasks.filter((t) => backendOf(t) === "tmux" && (t.tmux_target || t.tmux_pane_id) && t.status !== "pending" && !leased.has(t.id));
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


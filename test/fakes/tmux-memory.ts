/**
 * An in-memory TmuxClient for unit tests of what reads tmux (the sentinel's pass, the tmux
 * survey): sessions with their own ids, a foreground command, a dead flag, pane text and an
 * environment. The real client is tested against real tmux (test/unit/tmux-client.test.ts); this
 * fake only stands in for it, and takes the same targets: a session name, `$N` or `%N`.
 */
import { TmuxError, type TmuxClient, type TmuxPane } from "../../src/backends/tmux/client";

export type FakeSession = {
  id: string;
  paneId: string;
  command: string;
  dead: boolean;
  path: string;
  text: string;
  env: Record<string, string>;
  /** The session's tag (`newSession`'s `tag`). */
  tag: string;
  pasted: string[];
  keys: string[][];
};

export type MemoryTmux = TmuxClient & {
  sessions: Map<string, FakeSession>;
  calls: string[];
  /** tmux not on PATH: every call fails as the real client does. */
  missing: boolean;
  /** A server that does not answer (a timeout, a stuck server): `list-panes` throws this. */
  stuck?: Error;
  add(name: string, over?: Partial<FakeSession>): FakeSession;
  /** The session a target names (its name, `$N` or `%N`), as tmux would find it. */
  session(target: string): FakeSession | undefined;
};

export function memoryTmux(socket?: string): MemoryTmux {
  const sessions = new Map<string, FakeSession>();
  const calls: string[] = [];
  let next = 0;
  const t: MemoryTmux = {
    socket,
    sessions,
    calls,
    missing: false,
    add(name, over = {}) {
      const n = next++;
      const s: FakeSession = { id: `$${n}`, paneId: `%${n}`, command: "claude", dead: false, path: "/", text: "", env: {}, tag: "", pasted: [], keys: [], ...over };
      sessions.set(name, s);
      return s;
    },
    session(target) {
      return [...sessions.values()].find((s) => s.id === target || s.paneId === target) ?? sessions.get(target);
    },
    async newSession(r) {
      check("new-session");
      if (sessions.has(r.name)) throw new TmuxError("duplicate_session", `tmux new-session: duplicate session: ${r.name}`, []);
      const s = t.add(r.name, { command: r.argv[0] ?? "sh", path: r.cwd, env: { ...r.env, ...(r.tag ? { VX_TASK_ID: r.tag } : {}) }, tag: r.tag ?? "" });
      return { sessionId: s.id, paneId: s.paneId };
    },
    async hasSession(name) {
      check("has-session");
      return t.session(name) !== undefined;
    },
    async listPanes(): Promise<TmuxPane[]> {
      check("list-panes");
      if (t.stuck) throw t.stuck;
      return [...sessions].map(([session, s]) => ({ session, sessionId: s.id, paneId: s.paneId, dead: s.dead, command: s.command, pid: 1000 + Number(s.id.slice(1)), tag: s.tag }));
    },
    async capture(session, lines) {
      check("capture-pane");
      const s = must(session);
      return lines === undefined ? s.text : s.text.split("\n").slice(-lines).join("\n");
    },
    async paste(session, text) {
      check("paste-buffer");
      must(session).pasted.push(text);
    },
    async sendKeys(session, keys) {
      check("send-keys");
      must(session).keys.push(keys);
    },
    async killSession(name) {
      check("kill-session");
      const s = t.session(name);
      const entry = [...sessions].find(([, v]) => v === s);
      return entry ? sessions.delete(entry[0]) : false;
    },
    async releaseDeadPane(session) {
      check("set-option");
      must(session);
    },
    async paneDead(session) {
      check("display-message");
      return must(session).dead;
    },
    async paneInfo(target) {
      check("display-message");
      const s = t.session(target);
      return s && { sessionId: s.id, paneId: s.paneId, dead: s.dead, path: s.path };
    },
    async sessionEnv(target, name) {
      check("show-environment");
      return t.session(target)?.env[name];
    },
  };
  function check(call: string): void {
    calls.push(call);
    if (t.missing) throw new TmuxError("tmux_missing", "tmux not found in PATH", ["tmux", call]);
  }
  function must(target: string): FakeSession {
    const s = t.session(target);
    if (!s) throw new TmuxError("session_not_found", `tmux: can't find session: ${target}`, []);
    return s;
  }
  return t;
}

/**
 * An in-memory TmuxClient for unit tests of what reads tmux (the sentinel's pass, the tmux
 * survey): sessions with a foreground command, a dead flag and pane text. The real client is
 * tested against real tmux (test/unit/tmux-client.test.ts); this fake only stands in for it.
 */
import { TmuxError, type TmuxClient, type TmuxPane } from "../../src/backends/tmux";

export type FakeSession = { command: string; dead: boolean; path: string; text: string; pasted: string[]; keys: string[][] };

export type MemoryTmux = TmuxClient & {
  sessions: Map<string, FakeSession>;
  calls: string[];
  /** tmux not on PATH: every call fails as the real client does. */
  missing: boolean;
  add(name: string, over?: Partial<FakeSession>): FakeSession;
};

export function memoryTmux(): MemoryTmux {
  const sessions = new Map<string, FakeSession>();
  const calls: string[] = [];
  const t: MemoryTmux = {
    sessions,
    calls,
    missing: false,
    add(name, over = {}) {
      const s: FakeSession = { command: "claude", dead: false, path: "/", text: "", pasted: [], keys: [], ...over };
      sessions.set(name, s);
      return s;
    },
    async newSession(r) {
      check("new-session");
      if (sessions.has(r.name)) throw new TmuxError("duplicate_session", `tmux new-session: duplicate session: ${r.name}`, []);
      t.add(r.name, { command: r.argv[0] ?? "sh", path: r.cwd });
    },
    async hasSession(name) {
      check("has-session");
      return sessions.has(name);
    },
    async listPanes(): Promise<TmuxPane[]> {
      check("list-panes");
      return [...sessions].map(([session, s], i) => ({ session, paneId: `%${i}`, dead: s.dead, command: s.command, path: s.path, pid: 1000 + i }));
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
      return sessions.delete(name);
    },
    async releaseDeadPane(session) {
      check("set-option");
      must(session);
    },
    async paneDead(session) {
      check("display-message");
      return must(session).dead;
    },
  };
  function check(call: string): void {
    calls.push(call);
    if (t.missing) throw new TmuxError("tmux_missing", "tmux not found in PATH", ["tmux", call]);
  }
  function must(name: string): FakeSession {
    const s = sessions.get(name);
    if (!s) throw new TmuxError("session_not_found", `tmux: can't find session: ${name}`, []);
    return s;
  }
  return t;
}

// vexillum wake plugin for OpenCode, written by "vx init" ("vx doctor" reports hand edits).
// OpenCode has no Stop hook, so this runs the same "vx sentinel await" the Claude Code hook runs,
// as a child of this OpenCode process, and hands each wake it prints to this process's own
// session (after the running turn) through OpenCode's in-process client.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join, resolve, sep } from "node:path";
import { isMainThread } from "node:worker_threads";

type Res<T> = { data?: T; error?: unknown; response?: { ok: boolean; status: number } };
type Query = { directory: string };
type Client = {
  session: {
    get(o: { path: { id: string }; query: Query }): Promise<Res<{ parentID?: string }>>;
    status(o: { query: Query }): Promise<Res<Record<string, { type: string }>>>;
    create(o: { query: Query; body: Record<string, never> }): Promise<Res<{ id: string }>>;
    promptAsync(o: { path: { id: string }; query: Query; body: { parts: { type: "text"; text: string }[] } }): Promise<Res<unknown>>;
  };
  tui: {
    showToast(o: { body: { message: string; variant: string } }): Promise<unknown>;
    publish(o: { body: { type: string; properties: Record<string, string> } }): Promise<unknown>;
  };
};
type Event = { type: string; properties?: { sessionID?: unknown; status?: { type?: string }; info?: { id?: string; parentID?: string } } };

import { NOT_FOUND, __WAKE_DELIVERED__, __WAKE_RELISTEN_MS__, __WAKE_RETRY_MS__, findVx, gitToplevel, isCamp, scaled, spawnAwait, stopAwait } from "./wake-helpers.ts"; // vx writes the helpers here

// Wakes not yet handed to OpenCode. Kept on globalThis because OpenCode may dispose this plugin
// and load it again (an instance reload) after the await already consumed them.
const holder = globalThis as { __vexillumOpencodeWake1?: string[] };
const pending: string[] = (holder.__vexillumOpencodeWake1 ??= []);

// OpenCode calls every export of this module as a plugin, so it exports this one function only.
export const VexillumWake = async ({ client, directory }: { client: Client; directory: string }) => {
  // The TUI runs its server (and so this plugin) in a worker thread; "opencode run", "serve",
  // "web" and "acp" run it on the main thread and have no commander to wake.
  if (isMainThread) return {};
  const retryMs = scaled(__WAKE_RETRY_MS__);
  const giveUpMs = scaled(__WAKE_RELISTEN_MS__);
  const query = { directory };
  let disposed = false;
  let child: ChildProcess | undefined;
  let warned = false;
  let armed = false; // an await is wanted (false after a quick no-op exit, until the next session)
  let session: string | undefined; // this process's own root session: the last one it ran
  const roots = new Map<string, boolean>(); // session id -> whether it is a root session
  let delivering = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function isRoot(id: string): Promise<boolean> {
    const known = roots.get(id);
    if (known !== undefined) return known;
    try {
      const res = await client.session.get({ path: { id }, query });
      if (!res.data) return false;
      roots.set(id, !res.data.parentID);
      return !res.data.parentID;
    } catch {
      return false;
    }
  }

  async function busy(id: string): Promise<boolean> {
    const res = await client.session.status({ query });
    if (res.error || !res.data) throw new Error("session status failed");
    const status = res.data[id];
    return status !== undefined && status.type !== "idle";
  }

  // Hands the oldest pending wake to the own session once it is idle.
  async function deliver(): Promise<void> {
    if (disposed || delivering || pending.length === 0) return;
    delivering = true;
    try {
      let id = session;
      if (id !== undefined && (await busy(id))) return; // the idle event (or the retry) comes back
      if (id === undefined) {
        // Nothing ran in this OpenCode yet: start the commander's session for the wake.
        const created = await client.session.create({ query, body: {} });
        if (!created.data?.id) throw new Error("session create failed");
        id = session = created.data.id;
        roots.set(id, true);
      }
      const res = await client.session.promptAsync({ path: { id }, query, body: { parts: [{ type: "text", text: pending[0] as string }] } });
      if (res.error !== undefined || (res.response && !res.response.ok)) {
        if (res.response?.status === 404 && session === id) session = undefined; // deleted
        throw new Error("prompt failed");
      }
      pending.shift();
      // Show the woken session (the TUI may be on its home screen after /new).
      client.tui.publish({ body: { type: "tui.session.select", properties: { sessionID: id } } }).catch(() => {});
    } catch {
      // Kept; the retry below tries again.
    } finally {
      delivering = false;
      schedule();
    }
  }

  // While a wake is pending, look again every 5 s (a missed idle event, a failed prompt).
  function schedule(): void {
    if (disposed || pending.length === 0 || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void deliver();
    }, retryMs);
    timer.unref?.();
  }

  function startAwait(): void {
    if (disposed || !armed || child !== undefined) return;
    const vx = findVx();
    if (vx === undefined) {
      if (!warned) client.tui.showToast({ body: { message: NOT_FOUND, variant: "warning" } }).catch(() => {});
      warned = true;
      return;
    }
    const proc = spawnAwait(vx, directory, (code, text, ranMs) => {
      if (child === proc) child = undefined;
      // Kept even after dispose: the await consumed it, and the next instance delivers it.
      if (code === __WAKE_DELIVERED__ && text !== "") pending.push(text);
      if (disposed) return;
      if (code === __WAKE_DELIVERED__) {
        void deliver();
        startAwait();
      } else if (ranMs >= giveUpMs) {
        startAwait(); // a give-up: keep listening
      } else {
        armed = false; // nothing to wait for here: quiet until the next new session
      }
    });
    child = proc;
  }

  const top = await gitToplevel(directory);
  if (top === undefined || isCamp(top)) return {};
  armed = true;
  startAwait();
  void deliver(); // wakes left by an earlier instance of this plugin

  return {
    event: async ({ event }: { event: Event }) => {
      if (disposed) return;
      const p = event.properties ?? {};
      if (event.type === "session.created" || event.type === "session.updated") {
        if (p.info?.id) roots.set(p.info.id, !p.info.parentID);
        if (event.type === "session.created" && p.info?.id && !p.info.parentID && !armed) {
          armed = true;
          startAwait();
        }
        return;
      }
      if (event.type === "session.status" && typeof p.sessionID === "string") {
        if (!(await isRoot(p.sessionID))) return; // a subagent's session
        session = p.sessionID;
        if (p.status?.type === "idle") void deliver();
        return;
      }
      if (event.type === "session.deleted" && p.info?.id === session) session = undefined;
    },
    dispose: async () => {
      disposed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const proc = child;
      child = undefined;
      stopAwait(proc);
    },
  };
};

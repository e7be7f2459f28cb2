// The OpenCode wake plugin (CMDR-08a) loaded in a worker thread with a fake client: the own root
// session, prompted only once idle; a session made when none ran yet; none of it in `opencode run`.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { OPENCODE_PLUGIN } from "../../src/harnesses/opencode-plugin";
import { waitFor } from "../helpers";
import { FAKE_WAKE, type WakeKit, wakeKit } from "../wake-kit";

type Call = { fn: string; args: { path?: { id: string }; body?: { parts?: { text: string }[]; type?: string; properties?: Record<string, string> } } };

let kit: WakeKit;
let worker: Worker | undefined;
beforeEach(() => {
  kit = wakeKit();
});
afterEach(async () => {
  await worker?.terminate();
  worker = undefined;
  kit.restore();
});

async function start(directory: string) {
  const pluginPath = join(kit.dir, "opencode-wake.ts");
  await Bun.write(pluginPath, OPENCODE_PLUGIN);
  let calls: Call[] = [];
  let ready: string[] | undefined;
  worker = new Worker(join(import.meta.dir, "../fixtures/opencode-plugin-worker.ts"), { workerData: { pluginPath, directory }, env: { ...process.env } });
  worker.on("message", (m: { calls?: Call[]; ready?: boolean; hooks?: string[] }) => {
    if (m.calls) calls = m.calls;
    if (m.ready) ready = m.hooks;
  });
  await waitFor(() => ready, 10_000, "the plugin to load");
  const w = worker;
  return {
    hooks: ready!,
    calls: () => calls,
    prompts: () => calls.filter((c) => c.fn === "session.promptAsync"),
    send: (m: unknown) => w.postMessage(m),
  };
}

const created = (id: string) => ({ type: "session.created", properties: { sessionID: id, info: { id } } });
const status = (id: string, type: string) => ({ type: "session.status", properties: { sessionID: id, status: { type } } });

describe("OpenCode wake plugin (CMDR-08a)", () => {
  test("exports exactly one function, and imports only Node built-ins", () => {
    expect([...OPENCODE_PLUGIN.matchAll(/^export /gm)]).toHaveLength(1);
    for (const m of OPENCODE_PLUGIN.matchAll(/^import .* from "([^"]+)";$/gm)) expect(m[1]!.startsWith("node:")).toBe(true);
  });

  test("prompts its own idle root session with the wake, once, and shows it", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["waitwake", "hang"]);
    const p = await start(project);
    expect(p.hooks).toEqual(["event", "dispose"]);
    p.send({ event: created("ses_own") });
    p.send({ status: ["ses_own", "idle"], event: status("ses_own", "idle") });
    await waitFor(() => kit.log().length === 1, 5000, "the await");
    kit.trigger();
    await waitFor(() => p.prompts().length === 1 && kit.log().length === 2, 5000, "the prompt and the next await");
    expect(p.prompts()[0]!.args.path!.id).toBe("ses_own");
    expect(p.prompts()[0]!.args.body!.parts![0]!.text).toBe(FAKE_WAKE);
    await waitFor(() => p.calls().some((c) => c.fn === "tui.publish"), 5000, "the session select");
    expect(p.calls().some((c) => c.fn === "session.create")).toBe(false);
    await waitFor(() => kit.armed() === 1, 10_000, "the hanging await");
    p.send({ dispose: true });
    await waitFor(() => kit.log().includes("TERM"));
  });

  test("holds a wake while the session is busy and prompts it on the next idle", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["waitwake", "hang"]);
    const p = await start(project);
    p.send({ status: ["ses_own", "busy"], event: status("ses_own", "busy") });
    await waitFor(() => kit.log().length === 1 && p.calls().some((c) => c.fn === "session.get"), 5000, "the await and the session's lookup");
    kit.trigger();
    await waitFor(() => kit.log().length === 2, 5000, "the wake and the next await");
    await waitFor(() => p.calls().some((c) => c.fn === "session.status"), 5000, "the busy check");
    expect(p.prompts()).toEqual([]);
    p.send({ status: ["ses_own", "idle"], event: status("ses_own", "idle") });
    await waitFor(() => p.prompts().length === 1, 5000, "the prompt after the turn");
    expect(p.prompts()[0]!.args.path!.id).toBe("ses_own");
    await waitFor(() => kit.armed() === 1, 10_000, "the hanging await");
    p.send({ dispose: true });
    await waitFor(() => kit.log().includes("TERM"));
  });

  test("with no session yet it creates one, prompts it and shows it in the TUI", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["wake", "hang"]);
    const p = await start(project);
    await waitFor(() => p.prompts().length === 1, 5000, "the prompt");
    expect(p.prompts()[0]!.args.path!.id).toBe("ses_new1");
    await waitFor(() => p.calls().some((c) => c.fn === "tui.publish"), 5000, "the session select");
    const select = p.calls().find((c) => c.fn === "tui.publish")!;
    expect(select.args.body).toEqual({ type: "tui.session.select", properties: { sessionID: "ses_new1" } });
    await waitFor(() => kit.armed() === 1, 10_000, "the hanging await");
    p.send({ dispose: true });
    await waitFor(() => kit.log().includes("TERM"));
  });

  test("in a camp it starts nothing", async () => {
    const camp = kit.gitRepo(join(process.env.HOME ?? "", ".vexillum", "projects", "p-12345678", "camps", "1", "repo"));
    kit.script(["hang"]);
    const p = await start(camp);
    expect(p.hooks).toEqual([]);
    expect(kit.log()).toEqual([]);
  });
});

test("on the main thread (opencode run, serve) it returns no hooks and starts no await", async () => {
  const k = wakeKit();
  try {
    const project = k.gitRepo(join(k.dir, "project"));
    k.script(["hang"]);
    const plugin = await k.load<(i: unknown) => Promise<Record<string, unknown>>>("main-thread", OPENCODE_PLUGIN.replace("export const VexillumWake =", "export default"));
    expect(await plugin({ client: {}, directory: project })).toEqual({});
    expect(k.log()).toEqual([]);
  } finally {
    k.restore();
  }
});

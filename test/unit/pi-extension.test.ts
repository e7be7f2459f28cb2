// The Pi wake extension (CMDR-07) loaded in-process with a fake Pi that plays back the events real
// Pi 0.73.1 emits (observed in the compat suite): a wake counts only once its turn was answered.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PI_EXTENSION } from "../../src/harnesses/pi-extension";
import { waitFor } from "../helpers";
import { FAKE_WAKE, FAKE_WAKE_2, type WakeKit, wakeKit } from "../wake-kit";

type Handler = (event: unknown, ctx: unknown) => unknown;
/** What the fake Pi does with a sent text: answer it, refuse it before the turn (no event), or fail the request. */
type Outcome = "answer" | "silent" | "error";

function fakePi() {
  const handlers: Record<string, Handler> = {};
  const sent: string[] = [];
  const outcomes: Outcome[] = [];
  let busy = false;
  let idleChecks = 0;
  const ctx = (cwd: string) => ({
    cwd,
    hasUI: false,
    isIdle: () => {
      idleChecks++;
      return !busy;
    },
  });
  const emit = (event: string, payload: unknown) => handlers[event]?.(payload, ctx(""));
  const pi = {
    on: (event: string, handler: Handler) => {
      handlers[event] = handler;
    },
    sendUserMessage(text: string) {
      sent.push(text);
      const outcome = outcomes.shift() ?? "answer";
      if (outcome === "silent") return; // "No API key found": only shown in Pi's UI
      queueMicrotask(() => {
        busy = true;
        emit("message_start", { message: { role: "user", content: [{ type: "text", text }] } });
        const stopReason = outcome === "error" ? "error" : "stop";
        emit("message_end", { message: { role: "assistant", content: [], stopReason } });
        busy = false;
        emit("agent_end", { messages: [] });
      });
    },
  };
  return {
    pi,
    sent,
    outcomes,
    setBusy: (b: boolean) => (busy = b),
    /** How often the extension asked whether Pi is idle: each ask is a chance to send that it took or not. */
    idleChecks: () => idleChecks,
    start: (cwd: string) => handlers.session_start?.({ reason: "startup" }, ctx(cwd)),
    shutdown: () => handlers.session_shutdown?.({ reason: "reload" }, ctx("")),
    context: (messages: unknown[]) => handlers.context?.({ messages }, ctx("")) as { messages: unknown[] } | undefined,
  };
}

let kit: WakeKit;
beforeEach(() => {
  kit = wakeKit();
  delete (globalThis as Record<string, unknown>).__vexillumWake2;
});
afterEach(() => kit.restore());

/** The wakes the extension holds (on globalThis, shared by its instances): only these can still be sent. */
function held(): unknown[] {
  return (globalThis as { __vexillumWake2?: { wakes: unknown[] } }).__vexillumWake2?.wakes ?? [];
}

async function load(name: string) {
  const factory = await kit.load<(pi: unknown) => void>(name, PI_EXTENSION);
  const pi = fakePi();
  factory(pi.pi);
  return pi;
}

describe("Pi wake extension (CMDR-07)", () => {
  test("is valid TypeScript that imports only Node built-ins", () => {
    const js = new Bun.Transpiler({ loader: "ts" }).transformSync(PI_EXTENSION);
    expect(js).toContain("export default");
    const imports = [...PI_EXTENSION.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const source of imports) expect(source.startsWith("node:")).toBe(true);
    expect(PI_EXTENSION).toContain('spawn(vx, ["sentinel", "await"]');
    expect(PI_EXTENSION).toContain('pi.sendUserMessage(head.text, { deliverAs: "followUp" })');
    expect(PI_EXTENSION.endsWith("\n")).toBe(true);
  });

  test("delivers each wake once, restarts after a give-up, stops on a quick exit", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["wake", "giveup", "wake", "quick"]);
    const pi = await load("deliver");
    pi.start(project);
    // Once the extension has handled the fourth await's exit, any await it started there is
    // already counted: a quick exit ends the loop, so there is none.
    await waitFor(() => kit.spawns().handled === 4, 10_000, "the fourth await's exit to be handled");
    expect(kit.spawns()).toEqual({ spawned: 4, handled: 4 });
    expect(kit.log()).toEqual(Array(4).fill(`${project} sentinel await`));
    // Both wakes were answered, so none is held: nothing is left to send.
    expect(pi.sent).toEqual([FAKE_WAKE, FAKE_WAKE]);
    expect(held()).toEqual([]);
  });

  test.each(["silent", "error"] as const)("a %s first delivery is sent again until a turn answers it", async (first) => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    // The second wake queues behind the first: it is sent only once the first is answered.
    kit.script(["wake", "wake2", "quick"]);
    const pi = await load(`retry-${first}`);
    pi.outcomes.push(first, first);
    pi.start(project);
    await waitFor(() => pi.sent.length === 4, 10_000, "two failed sends, a third, and the next wake");
    // Answered the third time, the first wake was sent no more: the next send is the next wake.
    expect(pi.sent).toEqual([FAKE_WAKE, FAKE_WAKE, FAKE_WAKE, FAKE_WAKE_2]);
    await waitFor(() => kit.spawns().handled === 3, 10_000, "the last await's exit to be handled");
    expect(held()).toEqual([]);
    expect(pi.sent.length).toBe(4);
  });

  test("after a failed request the model reads the resent wake once", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["wake", "quick"]);
    const pi = await load("context");
    pi.outcomes.push("error");
    pi.start(project);
    await waitFor(() => pi.sent.length === 2);
    const user = { role: "user", content: [{ type: "text", text: FAKE_WAKE }] };
    const failed = { role: "assistant", content: [], stopReason: "error" };
    expect(pi.context([user, failed, user])?.messages).toEqual([failed, user]);
  });

  test("waits while Pi is busy, then sends", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["wake", "quick"]);
    const pi = await load("busy");
    pi.setBusy(true);
    pi.start(project);
    await waitFor(() => kit.log().length === 2);
    // The wake is held: every tick asks whether Pi is idle (five ticks a retry period), and a busy
    // Pi gets nothing, however often it is asked.
    expect(held()).toHaveLength(1);
    const checks = pi.idleChecks();
    await waitFor(() => pi.idleChecks() >= checks + 10, 10_000, "ten more idle checks");
    expect(pi.sent).toEqual([]);
    pi.setBusy(false);
    await waitFor(() => pi.sent.length === 1);
  });

  test("a wake whose await exits after session_shutdown is kept for the next instance", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    kit.script(["late", "hang"]);
    const old = await load("old");
    old.start(project);
    await waitFor(() => kit.armed() === 1, 10_000, "the old instance's await");
    // /reload: the old instance is shut down, and its await exits 2 with a wake only afterwards.
    old.shutdown();
    const next = await load("next");
    next.start(project);
    await waitFor(() => next.sent.length === 1, 5000, "the next instance to send the late wake");
    expect(old.sent).toEqual([]);
    expect(next.sent).toEqual([FAKE_WAKE]);
    await waitFor(() => kit.armed() === 2, 10_000, "the next instance's await");
    next.shutdown();
    await waitFor(() => kit.log().includes("TERM"));
  });

  test("kills its await on session_shutdown and does nothing in a camp", async () => {
    const project = kit.gitRepo(join(kit.dir, "project"));
    const camp = kit.gitRepo(join(process.env.HOME ?? "", ".vexillum", "projects", "p-12345678", "camps", "1", "repo"));
    kit.script(["hang"]);
    const inCamp = await load("camp");
    inCamp.start(camp);
    const pi = await load("shutdown");
    pi.start(project);
    await waitFor(() => kit.armed() === 1, 10_000, "the await");
    pi.shutdown();
    await waitFor(() => kit.log().includes("TERM"));
    expect(kit.log()).toEqual([`${project} sentinel await`, "TERM"]);
  });
});

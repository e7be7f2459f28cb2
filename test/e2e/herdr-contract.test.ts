// The herdr contract: every herdr call vx makes (src/backends/herdr/client.ts), through vx's own client,
// against the real herdr 0.8.2 and against the fake, with the same scripted harness in their panes;
// the fake must answer what the real server answers (exit codes, envelope keys and their order,
// error codes, field types, ids, statuses and the order they come in, what the screen reads).
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { herdrCode } from "../../src/backends/herdr/types";
import { type HerdrClient, failure, herdrArgv } from "../../src/backends/herdr/client";
import { type Side, fakeSide, programDir, rawShape, realSide, SCRIPTED_CLAUDE, shape } from "../herdr-contract-kit";

const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-herdr-contract-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

type Notes = Map<string, unknown>;

/** Statuses of `target` as `agent get` reports them, each change once, until `done` says so. */
async function statuses(side: Side, target: string, done: (seq: string[]) => boolean, onEach?: (seq: string[]) => void, maxMs = 30_000): Promise<string[]> {
  const seq: string[] = [];
  const end = Date.now() + maxMs;
  while (!done(seq) && Date.now() < end) {
    const c = side.client();
    let entry: string;
    try {
      entry = (await c.herdr.agentGet(target)).agent_status;
      if (JSON.parse(c.last()!.res.stdout).result.agent.launch_pending) entry += "+launch_pending";
    } catch (err) {
      entry = herdrCode(err) ?? String(err);
    }
    if (seq.at(-1) !== entry) seq.push(entry);
    onEach?.(seq);
    await Bun.sleep(100);
  }
  return seq;
}

function errorCode(stderr: string): string {
  try {
    return JSON.parse(stderr).error.code;
  } catch {
    return `text: ${closedSocket(stderr.trim())}`;
  }
}

/**
 * As its socket closes, the real server's client fails with an OS error whose kind is timing (ConnectionReset or
 * BrokenPipe, seen both on one machine): one class here, as vx treats them (server_unavailable).
 */
function closedSocket(text: string): string {
  return text.replace(/^Error: Os \{ code: \d+, kind: (ConnectionReset|BrokenPipe), message: "[^"]*" \}$/, "Error: Os { <the socket closed> }");
}

/** Compared apart from the rest: the errors (and their shapes) seen while the server stopped. */
const STOPPING = "~errors while the server stops";

const settled = (seq: string[]) => seq.includes("working") && ["idle", "done"].includes(seq.at(-1)!);

async function scenario(side: Side): Promise<Notes> {
  const notes: Notes = new Map();
  const note = (label: string, value: unknown) => notes.set(label, value);
  /** One vx call: its argv, the raw answer's shape, and what vx's client made of it. */
  async function call<T>(label: string, fn: (h: HerdrClient) => Promise<T>, view: (v: T) => unknown = (v) => shape(v)): Promise<T | undefined> {
    const c = side.client();
    let vx: unknown;
    let value: T | undefined;
    try {
      value = await fn(c.herdr);
      vx = view(value);
    } catch (err) {
      vx = { error: herdrCode(err) ?? String(err) };
    }
    const last = c.last();
    note(label, { argv: last?.argv, raw: last && rawShape(last.res), vx });
    return value;
  }
  const raw = (argv: string[]) => side.run(argv);
  const text = (t: string) => t;

  await call("herdr --version", (h) => h.version());
  await call("status server --json", (h) => h.serverStatus());
  note("a new server: workspace list", rawShape(await raw(["herdr", "workspace", "list"])));
  await call("a new server: agent list", (h) => h.agentList());

  const cwd = join(base, "camp");
  mkdirSync(cwd, { recursive: true });
  const ws = await side.workspace(cwd);
  const tabA = await call("tab create", (h) => h.tabCreate({ workspace: ws.workspace, cwd, label: "vx-a" }));

  // A program missing from the server's PATH: herdr waits 30 s for it (run beside the rest).
  const tabX = await call("tab create (missing program)", (h) => h.tabCreate({ workspace: ws.workspace, cwd, label: "vx-x" }));
  const missing = call("agent start of a program not on the server's PATH", (h) => h.agentStart("vx-x", "codex", tabX!.paneId, []));
  await statuses(side, "vx-x", (seq) => seq.some((e) => e.endsWith("launch_pending")), undefined, 10_000);
  note("agent get while its launch is pending", rawShape(await raw(herdrArgv.agentGet("vx-x"))));

  // agent start: named at once, `unknown` while its launch is pending, then the screen's status.
  const hold = side.holdStart();
  let pending = 0;
  const started = call("agent start", (h) => h.agentStart("vx-a", "claude", tabA!.paneId, ["--flag", "x"]));
  const startSeq = await statuses(
    side,
    "vx-a",
    (seq) => ["idle", "done"].includes(seq.at(-1)!),
    (seq) => {
      if (seq.at(-1)?.endsWith("launch_pending") && ++pending >= 2) hold.release();
    },
  );
  await started;
  // The first look can come before herdr has the start request.
  note("statuses while agent start runs", startSeq[0] === "agent_not_found" ? startSeq.slice(1) : startSeq);
  await call("agent get", (h) => h.agentGet("vx-a"));
  await call("agent read visible: the program's screen and its environment (the server's)", (h) => h.agentRead("vx-a", "visible"), text);

  const tabB = JSON.parse((await raw(["herdr", "tab", "create", "--workspace", ws.workspace, "--cwd", cwd, "--label", "vx-b", "--no-focus", "--env", "VX_CONTRACT_TAB=tab"])).stdout).result.root_pane
    .pane_id as string;
  await call("agent start (tab with --env)", (h) => h.agentStart("vx-b", "claude", tabB, []));
  await call("agent read visible: the tab's --env reaches the program", (h) => h.agentRead("vx-b", "visible"), text);
  await call("agent list", (h) => h.agentList());

  // A prompt: answered with the agent as it was; the program's screen then makes it work, then done.
  const prompted = await call("agent prompt", (h) => h.agentPrompt("vx-a", "work one"));
  note(
    "statuses after agent prompt",
    [prompted?.agent_status, ...(await statuses(side, "vx-a", settled))].filter((x, i, a) => a[i - 1] !== x),
  );
  await call("agent prompt --wait", (h) => h.agentPrompt("vx-a", "work two", { waitTimeoutMs: 20_000 }));
  await call("agent prompt --wait, shorter than the turn", (h) => h.agentPrompt("vx-a", "work three", { waitTimeoutMs: 1000 }));
  await call("agent wait, shorter than the turn", (h) => h.agentWait("vx-a", 300));
  await call("agent wait", (h) => h.agentWait("vx-a", 20_000));

  // A prompt of two lines reaches the program as two input lines, each its own turn.
  const two = await call("agent prompt of two lines", (h) => h.agentPrompt("vx-a", "mute first\nwork second"));
  note(
    "statuses after a two-line prompt",
    [two?.agent_status, ...(await statuses(side, "vx-a", settled))].filter((x, i, a) => a[i - 1] !== x),
  );
  await call("agent read visible after a two-line prompt", (h) => h.agentRead("vx-a", "visible"), text);
  await call("agent prompt --wait to a program that ignores it", (h) => h.agentPrompt("vx-a", "mute again", { waitTimeoutMs: 20_000 }));

  // A dialog: blocked; a prompt is refused; the screen reads whole with `visible`, not by its bottom rows.
  const asked = await call("agent prompt that opens a dialog", (h) => h.agentPrompt("vx-a", "ask now"));
  note(
    "statuses after the dialog opens",
    [asked?.agent_status, ...(await statuses(side, "vx-a", (seq) => seq.at(-1) === "blocked"))].filter((x, i, a) => a[i - 1] !== x),
  );
  await call("agent prompt to a blocked agent", (h) => h.agentPrompt("vx-a", "more"));
  await call("agent read visible of a dialog", (h) => h.agentRead("vx-a", "visible"), text);
  await call("agent read --lines 20 of a dialog at the top of the pane", (h) => h.agentRead("vx-a", undefined, 20), text);
  await call("agent read recent-unwrapped --lines 500", (h) => h.agentRead("vx-a", "recent-unwrapped", 500), text);
  await call("agent send-keys", (h) => h.agentSendKeys("vx-a", ["Escape"]));

  // A turn that ends in the focused tab reads `idle`, not `done`.
  const f = await call("agent start in the focused tab", (h) => h.agentStart("vx-f", "claude", ws.pane, []));
  const fp = await call("agent prompt in the focused tab", (h) => h.agentPrompt("vx-f", "work f"));
  note(
    "statuses in the focused tab",
    [fp?.agent_status, ...(await statuses(side, "vx-f", settled))].filter((x, i, a) => a[i - 1] !== x),
  );
  note("focused", f?.agent_status);

  // The errors vx parses.
  await call("agent get of an unknown agent", (h) => h.agentGet("nope"));
  await call("agent read of an unknown agent", (h) => h.agentRead("nope", "visible"));
  await call("agent send-keys to an unknown agent", (h) => h.agentSendKeys("nope", ["Enter"]));
  await call("agent wait for an unknown agent", (h) => h.agentWait("nope", 500));
  await call("agent prompt to an unknown agent", (h) => h.agentPrompt("nope", "hi"));
  await call("agent start in a pane that does not exist", (h) => h.agentStart("vx-z", "claude", `${ws.workspace}:p99`, []));
  await call("agent start in a busy pane", (h) => h.agentStart("vx-y", "claude", tabB, []));
  const tabC = await call("tab create (name taken)", (h) => h.tabCreate({ workspace: ws.workspace, cwd, label: "vx-c" }));
  await call("agent start with a name taken", (h) => h.agentStart("vx-b", "claude", tabC!.paneId, []));
  await call("pane close of a pane that does not exist", (h) => h.paneClose(`${ws.workspace}:p99`));
  await call("tab close of a tab that does not exist", (h) => h.tabClose(`${ws.workspace}:t99`));
  await call("tab list of a workspace that does not exist", (h) => h.tabList("w9"));
  const usage = ["herdr", "agent", "list", "--json"];
  const usageRes = await raw(usage);
  note("usage error (agent list takes no --json)", { raw: rawShape(usageRes), vx: failure(usage, usageRes, 0).code });

  await call("tab list", (h) => h.tabList(ws.workspace));
  const panesBefore = await call("pane list", (h) => h.paneList(ws.workspace));
  await call("pane close", (h) => h.paneClose(tabB));
  await call("agent get after its pane closed", (h) => h.agentGet("vx-b"));
  await call("tab close", (h) => h.tabClose(tabC!.tabId));
  await missing;
  await call("agent get after its launch timed out", (h) => h.agentGet("vx-x"));

  // The server stops: calls meanwhile fail `server_unavailable`, or find the socket reset, then
  // `server_not_running`. Which of the first two a call meets is timing: compared apart (below).
  const during = new Map<string, unknown>();
  await side.stop(async () => {
    for (let i = 0; i < 40 && during.size < 2; i++) {
      const argv = herdrArgv.agentList();
      const r = await raw(argv);
      const code = r.code === 0 ? "ok" : errorCode(r.stderr);
      if (code === "server_not_running") break;
      if (code !== "ok" && !during.has(code)) during.set(code, { raw: rawShape({ ...r, stderr: closedSocket(r.stderr.trim()) }), vx: failure(argv, r, 0).code });
    }
  });
  await call("agent list with no server", (h) => h.agentList());
  note(STOPPING, during);
  await call("status server --json with no server", (h) => h.serverStatus());
  await call("tab close with no server", (h) => h.tabClose(tabA!.tabId));

  // A restart: the same panes (ids and tabs), each a fresh shell, no agents.
  await side.restart();
  const panesAfter = await call("pane list after a restart", (h) => h.paneList(ws.workspace));
  note("a restart keeps the pane ids", JSON.stringify(panesAfter?.map((p) => p.paneId)) === JSON.stringify(panesBefore?.filter((p) => p.paneId !== tabB).map((p) => p.paneId)));
  await call("agent list after a restart", (h) => h.agentList());
  await call("agent get of a restored pane", (h) => h.agentGet(tabA!.paneId));

  // A harness typed into a pane (as a person starts a commander): not found, then unknown, then its status.
  await raw(["herdr", "pane", "run", tabA!.paneId, "claude"]);
  const found = await statuses(side, tabA!.paneId, (seq) => ["idle", "done"].includes(seq.at(-1)!));
  note("statuses of a harness herdr finds in a pane", found[0] === "agent_not_found" ? found.slice(1) : found);
  await call("agent get of a harness herdr found", (h) => h.agentGet(tabA!.paneId));
  return notes;
}

test("the fake herdr answers every call vx makes as the real herdr 0.8.2 does", async () => {
  const prog = programDir(join(base, "prog"), SCRIPTED_CLAUDE);
  const home = join(base, "home");
  const sides = [await realSide(prog, home), await fakeSide(join(base, "fake-bin"), prog, home)];
  try {
    const [real, fake] = await Promise.all(sides.map((s) => scenario(s)));
    const differ: unknown[] = [];
    for (const [label, value] of real!) {
      if (label === STOPPING) continue;
      if (JSON.stringify(fake!.get(label)) !== JSON.stringify(value)) differ.push({ label, real: value, fake: fake!.get(label) });
    }
    expect(differ).toEqual([]);
    expect([...fake!.keys()].sort()).toEqual([...real!.keys()].sort());
    // Every error the real server gave while stopping, the fake gives too, in the same shape.
    const [realStop, fakeStop] = [real!.get(STOPPING), fake!.get(STOPPING)] as Map<string, unknown>[];
    for (const [code, seen] of realStop!) expect({ code, seen: fakeStop!.get(code) }).toEqual({ code, seen });
    // What the real server showed, so the fake's agreement means something.
    expect(real!.get("statuses after agent prompt")).toEqual(["idle", "working", "done"]);
    expect(real!.get("statuses in the focused tab")).toEqual(["idle", "working", "idle"]);
  } finally {
    await Promise.all(sides.map((s) => s.dispose()));
  }
}, 300_000);

// WAK-14 the general's ping with the compiled binary: `vx init --notify`, doctor's line, and a real
// `vx sentinel` running real notifier stand-ins: one that records what it got, one that hangs (the
// wakes go on; it is killed after the scaled 30 s with everything it started), one that is missing.
import { describe, expect, test } from "bun:test";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configPath } from "../../src/project";
import { NOTE_AGENT_GONE } from "../../src/backends/herdr";
import { reasonText } from "../../src/wakes/reason";
import { removeAgent, setAgentStatus, setPaneText } from "../fakes/herdr-control";
import { VX_BIN, alive, vx, waitFor, writeExecutable } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

const DIALOG = ["Ship now?", "", "❯ 1. Yes", "  2. No", "", "Enter to select · ↑/↓ to navigate · Esc to cancel"].join("\n");

/** A stand-in notifier: records its argv, the three variables, its cwd and stdin per task id. */
function recorder(f: Field, name = "notify-standin"): string {
  const dir = join(f.home, "pings");
  mkdirSync(dir, { recursive: true });
  writeExecutable(
    join(f.bin, name),
    `#!/bin/sh
rec="${dir}/$VX_TASK_ID"
{ printf 'argv:'; for a in "$@"; do printf ' <%s>' "$a"; done; printf '\\n'
  printf 'env: %s|%s|%s\\n' "$VX_PROJECT" "$VX_TASK_ID" "$VX_NEW_STATUS"
  printf 'cwd: %s\\n' "$(pwd)"
  printf 'stdin:\\n'; cat; } > "$rec.tmp"
mv "$rec.tmp" "$rec.txt"
`,
  );
  return dir;
}

async function init(f: Field, notify: string) {
  const r = await f.run(["init", "--yes", "--notify", notify]);
  expect(r.stderr).not.toContain("vx: ");
  expect(r.code).toBe(0);
}

/** Sets `"notify"` in the project's config.json directly, as a general editing it would. */
function setNotify(f: Field, argv: string[]) {
  const config = JSON.parse(readFileSync(configPath(f.project), "utf8"));
  writeFileSync(configPath(f.project), JSON.stringify({ ...config, notify: argv }, null, 2));
}

/** `vx sentinel` in the background, its log in a file. */
function sentinel(f: Field) {
  const log = join(f.home, "sentinel.log");
  const fd = openSync(log, "a");
  const p = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdin: "ignore", stdout: fd, stderr: fd });
  closeSync(fd);
  return {
    log: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    async stop() {
      p.kill("SIGTERM");
      await p.exited;
    },
  };
}

/** A running task whose soldier asks a modal question now: the next pass settles it `blocked`. */
async function blockedTask(f: Field) {
  const s = await seedTask(f, { status: "running", agentStatus: "blocked" });
  setPaneText(f.fh, s.name, DIALOG, "visible");
  return s;
}

const wakeOf = (f: Field, id: string) => JSON.parse(readFileSync(join(f.paths.wakesDir, `${id}.json`), "utf8"));

describe("vx init --notify and doctor", () => {
  test("stores the argv (JSON or words), keeps it on a re-init and an upgrade; bad values exit 64 and change nothing", async () => {
    await using f = await field({ init: false });
    await init(f, '["notify-standin","--topic","my vx"]');
    const config = () => JSON.parse(readFileSync(configPath(f.project), "utf8"));
    expect(config().notify).toEqual(["notify-standin", "--topic", "my vx"]);
    expect((await f.run(["init", "--yes"])).code).toBe(0);
    expect((await f.run(["upgrade", "--scaffold-only", "--yes"])).code).toBe(0);
    expect(config().notify).toEqual(["notify-standin", "--topic", "my vx"]);
    await init(f, "notify-send   vx");
    expect(config().notify).toEqual(["notify-send", "vx"]);

    const before = readFileSync(configPath(f.project), "utf8");
    for (const [argv, first] of [
      [["--notify", '["ntfy",'], `vx: --notify '["ntfy",' is not a JSON array of strings - give a program and its arguments, e.g. --notify 'notify-send vx' or --notify '["ntfy","publish","my-vx"]'`],
      [["--notify", '[""]'], `vx: --notify '[""]' names no program (its first element is empty) - give a program and its arguments`],
      [["--notify", " "], "vx: --notify is empty - give a program and its arguments"],
      [["--notify", "ntfy", "publish"], `vx: unexpected argument "publish" (quote the whole --notify command, e.g. --notify 'ntfy publish my-vx')`],
    ] as [string[], string][]) {
      const r = await f.run(["init", "--yes", ...argv]);
      expect(r.code).toBe(64);
      expect(r.stderr.split("\n")[0]).toStartWith(first);
      expect(r.stdout).toBe("");
    }
    expect(readFileSync(configPath(f.project), "utf8")).toBe(before);
  });

  test("doctor: no line without notify; its command and program, a missing program, an invalid setting", async () => {
    await using f = await field();
    const line = async () => (await vx(["doctor"], { cwd: f.project, env: f.env })).stdout.split("\n").filter((l) => / notify( |$)/.test(l));
    expect(await line()).toEqual([]);
    recorder(f);
    await init(f, '["notify-standin","--topic","my vx"]');
    expect(await line()).toEqual([`[ok] notify - notify-standin --topic my vx (${join(f.bin, "notify-standin")})`]);
    await init(f, "vx-no-such-notifier now");
    expect(await line()).toEqual(["[warn] notify - vx-no-such-notifier now: vx-no-such-notifier not found, so you are never pinged; install it or run 'vx init --notify <command>'"]);
    const config = JSON.parse(readFileSync(configPath(f.project), "utf8"));
    writeFileSync(configPath(f.project), JSON.stringify({ ...config, notify: "notify-send vx" }));
    expect(await line()).toEqual([
      `[warn] notify - invalid: "notify" is not an array of strings naming a program and its arguments, e.g. ["ntfy","publish","my-vx"]; fix .vexillum/config.json or run 'vx init --notify <command>'`,
    ]);
  });
});

describe("the sentinel pings the general", () => {
  test("a real notifier gets the wake's reason text on stdin, the argv as given and the three variables; the wake is delivered as ever", async () => {
    // Scale 0.1: a 3 s limit, so a slow start on a loaded machine is not taken for a hang.
    await using f = await field({ scale: "0.1" });
    const pings = recorder(f);
    setNotify(f, ["notify-standin", "--topic", "my vx"]);
    const a = await blockedTask(f);
    const b = await seedTask(f, { status: "running", agentStatus: "working" });
    removeAgent(f.fh, b.name);
    const s = sentinel(f);
    try {
      await waitFor(() => existsSync(join(pings, `${a.task.id}.txt`)) && existsSync(join(pings, `${b.task.id}.txt`)), 30_000, "both pings");
    } finally {
      await s.stop();
    }
    const wa = wakeOf(f, a.task.id);
    const wb = wakeOf(f, b.task.id);
    expect(wa).toMatchObject({ task_id: a.task.id, new_status: "blocked" });
    expect(wb).toMatchObject({ task_id: b.task.id, new_status: "interrupted", note: NOTE_AGENT_GONE });
    for (const [t, w] of [
      [a.task, wa],
      [b.task, wb],
    ] as const) {
      expect(readFileSync(join(pings, `${t.id}.txt`), "utf8")).toBe(
        ["argv: <--topic> <my vx>", `env: ${f.project}|${t.id}|${w.new_status}`, `cwd: ${f.project}`, "stdin:", `${reasonText([w], [])}\n`].join("\n"),
      );
    }
    expect(s.log()).not.toContain("notify");
    const drained = await f.run(["sentinel", "drain"]);
    expect(JSON.parse(drained.stdout).reason).toBe(reasonText([wa, wb], []));
  }, 60_000);

  test("a hanging notifier: the pass goes on and pings the next wake meanwhile; killed after the scaled 30 s with all it started, logged once", async () => {
    // Scale 0.3: the limit is 9 s against a 1.5 s poll, room for the second wake while the first hangs.
    await using f = await field({ scale: "0.3" });
    const pings = recorder(f, "notify-record");
    const a = await blockedTask(f);
    const b = await seedTask(f, { status: "running", agentStatus: "working" });
    const hang = join(f.home, "hang");
    mkdirSync(hang);
    // The first wake's notifier hangs (and starts a child that would too); the second records, and
    // whether the first was still running when it ran.
    writeExecutable(
      join(f.bin, "notify-hang"),
      `#!/bin/sh
if [ "$VX_TASK_ID" = "${a.task.id}" ]; then
  echo $$ > "${hang}/leader.tmp"; mv "${hang}/leader.tmp" "${hang}/leader"
  sleep 1000 & echo $! > "${hang}/child.tmp"; mv "${hang}/child.tmp" "${hang}/child"
  wait
fi
if kill -0 "$(cat "${hang}/leader")" 2>/dev/null; then echo yes > "${hang}/first-alive"; fi
exec notify-record "$@"
`,
    );
    setNotify(f, ["notify-hang"]);
    const s = sentinel(f);
    try {
      await waitFor(() => existsSync(join(hang, "child")), 30_000, "the hanging notifier");
      const leader = Number(readFileSync(join(hang, "leader"), "utf8"));
      const child = Number(readFileSync(join(hang, "child"), "utf8"));
      expect(wakeOf(f, a.task.id)).toMatchObject({ new_status: "blocked" });
      // It holds nothing of the sentinel's (its singleton lock above all) that would outlive it.
      if (existsSync(`/proc/${leader}/fd`)) {
        const open = readdirSync(`/proc/${leader}/fd`).map((n) => {
          try {
            return readlinkSync(`/proc/${leader}/fd/${n}`);
          } catch {
            return "";
          }
        });
        expect(open.filter((t) => t.includes(".vexillum"))).toEqual([]);
      }
      setPaneText(f.fh, b.name, DIALOG, "visible");
      setAgentStatus(f.fh, b.name, "blocked");
      await waitFor(() => existsSync(join(pings, `${b.task.id}.txt`)), 30_000, "the second wake's ping");
      expect(existsSync(join(hang, "first-alive"))).toBe(true);
      expect(wakeOf(f, b.task.id)).toMatchObject({ new_status: "blocked" });
      await waitFor(() => s.log().includes("was still running after 30s and was killed"), 30_000, "the kill");
      await waitFor(() => !alive(leader) && !alive(child), 10_000, "the notifier and its child gone");
      expect(s.log().match(/sentinel: notify/g)).toHaveLength(1);
      expect(s.log()).toContain(`sentinel: notify (${f.project}): notify-hang was still running after 30s and was killed (logged once)\n`);
    } finally {
      await s.stop();
    }
    const wakes = [wakeOf(f, a.task.id), wakeOf(f, b.task.id)];
    const drained = await f.run(["sentinel", "drain"]);
    expect(JSON.parse(drained.stdout).reason).toBe(reasonText(wakes, []));
  }, 90_000);

  test("a missing notifier is logged once for the project; every wake is written and delivered unchanged", async () => {
    await using f = await field();
    setNotify(f, ["vx-no-such-notifier", "--now"]);
    const a = await blockedTask(f);
    const b = await blockedTask(f);
    const s = sentinel(f);
    try {
      await waitFor(() => existsSync(join(f.paths.wakesDir, `${a.task.id}.json`)) && existsSync(join(f.paths.wakesDir, `${b.task.id}.json`)), 30_000, "both wakes");
      await waitFor(() => s.log().includes("vx-no-such-notifier not found"), 10_000, "the log line");
      const c = await blockedTask(f);
      await waitFor(() => existsSync(join(f.paths.wakesDir, `${c.task.id}.json`)), 30_000, "a later wake");
      const wakes = [a, b, c].map((t) => wakeOf(f, t.task.id));
      for (const [i, w] of wakes.entries()) {
        expect(Object.keys(w).sort()).toEqual(["detected_at", "kind", "new_status", "old_status", "task_id"]);
        expect(w).toMatchObject({ task_id: [a, b, c][i].task.id, kind: "mission", old_status: "running", new_status: "blocked" });
      }
      expect(s.log().match(/sentinel: notify/g)).toHaveLength(1);
      expect(s.log()).toContain(
        `sentinel: notify (${f.project}): vx-no-such-notifier not found, so the general is not pinged - install it or change "notify" in .vexillum/config.json (logged once)\n`,
      );
      const drained = await f.run(["sentinel", "drain"]);
      expect(JSON.parse(drained.stdout).reason).toBe(reasonText(wakes, []));
    } finally {
      await s.stop();
    }
  }, 60_000);
});

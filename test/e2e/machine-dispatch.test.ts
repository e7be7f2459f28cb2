// MCH-06..10 over a real sshd on 127.0.0.1: `vx dispatch --on` starts the soldier in a real tmux on the "machine"
// (a second HOME, its own state root and sentinel), its wake comes back through the local sentinel's relay
// (committed here before it is deleted there, once), and `vx land` brings its work here.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, alive, git, stopSentinels, vx, waitFor, writeExecutable } from "../helpers";
import { type MachineField, useMachineField } from "./machine-field";

let f: MachineField;
useMachineField((made) => {
  f = made;
});

describe("a soldier on another machine (MCH-06..10)", () => {
  test("dispatch --on: the soldier works there; its done wake is committed here, then deleted there, and the general pinged here", async () => {
    // The general's ping (WAK-14) runs here, where the general is; the machine's copy of the config never pings.
    const pings = join(f.sb.home, "pings");
    writeExecutable(join(f.sb.bin, "ping"), `#!/bin/sh\nprintf '%s %s\\n' "$VX_TASK_ID" "$VX_NEW_STATUS" >> ${pings}\n`);
    const config = join(f.sb.project, ".vexillum", "config.json");
    writeFileSync(config, JSON.stringify({ ...f.readJson(config), notify: [join(f.sb.bin, "ping")] }));
    const id = await f.dispatchOn("do the remote thing");
    const mirror = f.mirror(id);
    expect(mirror).toMatchObject({ id, status: "running", machine: "box", prompt: "do the remote thing" });
    expect(mirror.remote_project).toStartWith(join(f.remote.home, ".local", "share", "vexillum", "remotes"));
    expect(mirror.camp_path).toBeUndefined();
    // A machine with a task in flight is not forgotten: its relay is how the news comes back.
    const remove = await vx(["machine", "remove", "box"], { cwd: f.sb.project, env: f.env });
    expect({ code: remove.code, stderr: remove.stderr }).toEqual({ code: 1, stderr: `vx: machine box has 1 task(s) in flight (${id}) - wait for them, or strike them, then remove it\n` });
    // The prompt never rode on a command line: it reached the machine on stdin.
    expect(f.readJson(join(f.remoteDir(), "tasks", `${id}.json`)).prompt).toBe("do the remote thing");
    // vx wait here follows the mirror: it ends when the relayed status does.
    const waiting = vx(["wait", id, "--poll-interval", "0.2"], { cwd: f.sb.project, env: f.env });
    f.go(id);
    await f.relayedOnce(id);
    expect(f.mirror(id)).toMatchObject({ status: "done", machine: "box" });
    await waitFor(() => existsSync(pings) && readFileSync(pings, "utf8") === `${id} done\n`, 20_000, "one ping here");
    expect(readFileSync(join(f.remote.home, ".vexillum", "sentinel.log"), "utf8")).not.toContain("notify");
    const waited = await waiting;
    expect(waited.stdout).toContain(`task=${id}`);
    expect(waited.stdout).toContain("source=recorded");
    expect(waited.code).toBe(0);
    expect(f.relays().length).toBe(1);
    const doctor = await vx(["doctor"], { cwd: f.sb.project, env: f.env });
    expect(doctor.stdout).toMatch(/^\[ok\] machine box - remote, vx \S+; relay up since \S+; check it with vx machine doctor box$/m);
    const status = await vx(["status"], { cwd: f.sb.project, env: f.env });
    expect(status.stdout).toMatch(new RegExp(`^${id}  mission  done .*\\n    on machine box$`, "m"));
  }, 120_000);

  test("prompt: run there by the machine's vx, the text on stdin; the mirror takes what it recorded", async () => {
    const id = (readdirSync(join(f.localDir(), "tasks")).find((n) => n.endsWith(".json")) as string).slice(0, -5);
    const text = "one more thing: it's $HOME's `turn`";
    const r = await vx(["prompt", id, text], { cwd: f.sb.project, env: f.env });
    expect(r.stdout).toMatch(new RegExp(`^status=running\nprompted task ${id}, now running\n$`));
    expect(r.code).toBe(0);
    // Byte for byte through the quoting of two shells: it went on stdin.
    expect(f.mirror(id)).toMatchObject({ status: "running", amendments: [{ text, source: "vx prompt" }] });
    // Its own refusal there comes back marked, with its exit code.
    const again = await vx(["decide", id, "--dismiss"], { cwd: f.sb.project, env: f.env });
    expect(again.stderr).toMatch(/^\[box\] vx: /);
    expect(again.code).not.toBe(0);
  }, 120_000);

  test("land: the mission's branch fetched from its camp there, fast-forwarded here, then its camp struck there", async () => {
    const id = (readdirSync(join(f.localDir(), "tasks")).find((n) => n.endsWith(".json")) as string).slice(0, -5);
    const before = git(f.sb.project, "rev-parse", "HEAD");
    const land = await vx(["land", id], { cwd: f.sb.project, env: f.env });
    expect(land.stdout).toContain(`landed: fast-forwarded ${f.sb.project} to vexillum/${id}`);
    expect(land.stdout).toContain("struck: camp returned to the pool");
    expect(land.code).toBe(0);
    expect(git(f.sb.project, "log", "-1", "--format=%s")).toBe("remote work");
    expect(git(f.sb.project, "rev-parse", "HEAD^")).toBe(before);
    // The fetched branch is gone here; the camp there is back in its pool.
    expect(git(f.sb.project, "branch", "--list", `vexillum/${id}`)).toBe("");
    const pool = f.readJson(join(f.remoteDir(), "camps", "pool.json"));
    expect(pool.slots.some((slot: { leased_by?: string }) => slot.leased_by === id)).toBe(false);
    expect(f.mirror(id).status).toBe("done");
  }, 120_000);

  test("the local sentinel killed -9 while the soldier finishes: the wake waits there, then comes once", async () => {
    const id = await f.dispatchOn("another remote thing");
    const pid = f.sentinelPid(f.sb.home);
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), 10_000, "the sentinel gone");
    await waitFor(() => f.relays().length === 0, 20_000, "its relay's ssh gone with it");
    f.go(id);
    await waitFor(() => existsSync(f.remoteWake(id)), 60_000, "the wake written there");
    expect(existsSync(f.localWake(id))).toBe(false);
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.sb.home, env: f.env, stdout: "ignore", stderr: "ignore" });
    try {
      await f.relayedOnce(id);
      expect(f.relays().length).toBe(1);
    } finally {
      await stopSentinels(f.sb.home, [sentinel.pid]);
    }
    expect(readFileSync(join(f.sb.home, ".vexillum", "relay", "box.json"), "utf8")).toContain('"state": "up"');
  }, 120_000);
});

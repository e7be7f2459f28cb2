// STA-10 camp setup end to end: the `.worktreeinclude` copy and config.json's `camp_setup`
// commands before the soldier starts, on real git repos and camps (fake herdr and real tmux).
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { listTasks } from "../../src/state/tasks";
import { commitIgnores, git, writeExecutable } from "../helpers";
import { type Field, field, seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

const quiet = (stderr: string) => stderr.replace(/^vx: auto-started sentinel.*\n/m, "");

function setConfig(f: Field, extra: Record<string, unknown>): void {
  const path = join(f.project, ".vexillum", "config.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), ...extra }, null, 2));
}

function write(path: string, text: string, mode = 0o644): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

// A setup command that records where it ran and what it was given, then talks on both streams.
const RECORDER = `#!/bin/sh
printf 'pwd=%s\\ntask=%s\\ncamp=%s\\nproject=%s\\nextra=%s\\nargs=%s\\n' "$(pwd)" "$VX_TASK_ID" "$VX_CAMP" "$VX_PROJECT" "$SETUP_EXTRA" "$*" > "$VX_CAMP/.setup-env"
echo "installing dependencies"
echo "warning: something minor" >&2
`;

const FAILER = `#!/bin/sh
echo "step one ok"
echo "DB_PASSWORD=hunter2hunter2 in use" >&2
echo "fatal: could not resolve registry" >&2
exit 3
`;

describe("camp setup: .worktreeinclude", () => {
  test("ignored files it names arrive with their modes; tracked, unignored, outside-link and dependency files do not", async () => {
    await using f = await field();
    const p = f.project;
    write(join(p, ".gitignore"), ".env*\nnode_modules/\nlocal/\nsecrets.json\n");
    write(join(p, ".env.shared"), "SHARED=committed\n");
    write(join(p, "secrets.json"), '{"v":"committed"}\n');
    git(p, "add", ".gitignore");
    git(p, "add", "-f", ".env.shared", "secrets.json");
    git(p, "commit", "-q", "-m", "ignores");
    // Tracked in the camp: one edited in the checkout, one untracked there since (rm --cached).
    write(join(p, ".env.shared"), "SHARED=edited in the checkout\n");
    git(p, "rm", "-q", "--cached", "secrets.json");
    write(join(p, "secrets.json"), '{"v":"checkout"}\n');
    write(join(p, ".env"), "API_KEY=local\n", 0o600);
    write(join(p, ".env.local"), "#!/bin/sh\n", 0o750);
    write(join(p, "local", "deep", "conf.toml"), "x = 1\n", 0o640);
    write(join(p, "node_modules", "pkg", ".env.example"), "FROM_A_DEPENDENCY=1\n");
    write(join(p, "notes.env"), "untracked but not ignored\n");
    const outside = join(f.home, "outside-secret");
    write(outside, "outside\n");
    symlinkSync(outside, join(p, ".env.outside"));
    symlinkSync(".env", join(p, ".env.alias"));
    write(join(p, ".worktreeinclude"), "# local files\n.env*\n*.env\nlocal/\nsecrets.json\n");

    const r = await f.run(["dispatch", "fix it"]);
    // The edit of a tracked file stays in the checkout, and dispatch says so (CMD-DISPATCH-02).
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({
      code: 0,
      stderr: `vx: warning: ${p} has uncommitted changes the soldier's camp will not have (it starts from main's last commit) - commit them first if the soldier needs them\n`,
    });
    const id = taskIdOf(r.stdout);
    const camp = f.task(id).camp_path!;
    const mode = (rel: string) => statSync(join(camp, rel)).mode & 0o777;
    expect(readFileSync(join(camp, ".env"), "utf8")).toBe("API_KEY=local\n");
    expect(mode(".env")).toBe(0o600);
    expect(mode(".env.local")).toBe(0o750);
    expect(readFileSync(join(camp, "local", "deep", "conf.toml"), "utf8")).toBe("x = 1\n");
    expect(mode("local/deep/conf.toml")).toBe(0o640);
    expect(readlinkSync(join(camp, ".env.alias"))).toBe(".env");
    expect(readFileSync(join(camp, ".env.shared"), "utf8")).toBe("SHARED=committed\n");
    expect(readFileSync(join(camp, "secrets.json"), "utf8")).toBe('{"v":"committed"}\n');
    expect(lstatSync(join(camp, ".env.outside"), { throwIfNoEntry: false })).toBeUndefined();
    expect(existsSync(join(camp, "node_modules"))).toBe(false);
    expect(existsSync(join(camp, "notes.env"))).toBe(false);
    expect(git(camp, "status", "--porcelain")).toBe("");

    const log = join(f.paths.stateDir, "logs", `${id}-setup.log`);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const text = readFileSync(log, "utf8");
    expect(text).toContain(`skipped .env.outside: a link to the absolute path ${outside}, not followed (only relative links inside the checkout are copied)\n`);
    expect(text).toContain("skipped secrets.json: tracked in the camp, left as it is\n");
  });

  test("the setup log says why each file was skipped, one line per file whatever its name", async () => {
    await using f = await field();
    const p = f.project;
    commitIgnores(p, ".env*\n");
    write(join(p, ".env.two\nlines"), "A=1\n");
    // git lists no FIFO or socket; a link is listed, and said why it is not followed.
    symlinkSync("nowhere", join(p, ".env.dangling"));
    symlinkSync("/etc/hostname", join(p, ".env.password=hunter2"));
    symlinkSync("../..", join(p, ".env.up"));
    write(join(p, ".worktreeinclude"), ".env*\n");
    const r = await f.run(["dispatch", "fix it"]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    expect(readFileSync(join(f.task(id).camp_path!, ".env.two\nlines"), "utf8")).toBe("A=1\n");
    const lines = readFileSync(join(f.paths.stateDir, "logs", `${id}-setup.log`), "utf8").split("\n");
    expect(lines.slice(1, 5).sort()).toEqual([
      'copied ".env.two\\nlines"',
      "skipped .env.dangling: a link to nowhere, which does not exist (or loops), not followed",
      // A name that looks like an assignment of a password hides itself at most, never the reason.
      "skipped .env.up: a link to ../.., which leads out of the checkout, not followed",
      "skipped [redacted sensitive line]: a link to the absolute path /etc/hostname, not followed (only relative links inside the checkout are copied)",
    ]);
    expect(lines[5]).toBe("");
  });

  test("a link in the camp where a file goes is replaced, never written through", async () => {
    await using f = await field();
    const p = f.project;
    commitIgnores(p, ".env\n");
    write(join(p, ".env"), "NEW=1\n");
    write(join(p, ".worktreeinclude"), ".env\n");
    const first = await f.run(["dispatch", "first"]);
    const camp = f.task(taskIdOf(first.stdout)).camp_path!;
    // The soldier left a link in the (reused) camp pointing at a file outside it.
    const victim = join(f.home, "victim");
    write(victim, "untouched\n");
    rmSync(join(camp, ".env"));
    symlinkSync(victim, join(camp, ".env"));
    git(p, "merge", "-q", "--ff-only", `vexillum/${taskIdOf(first.stdout)}`);
    expect((await f.run(["strike", taskIdOf(first.stdout)])).code).toBe(0);
    const second = await f.run(["dispatch", "second"]);
    expect(second.code).toBe(0);
    expect(f.task(taskIdOf(second.stdout)).camp_path).toBe(camp);
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    expect(lstatSync(join(camp, ".env")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(camp, ".env"), "utf8")).toBe("NEW=1\n");
  });
});

describe("camp setup: camp_setup commands", () => {
  test("each runs in the camp, in order, with VX_TASK_ID, VX_CAMP, VX_PROJECT and the caller's environment; output in the 0600 log", async () => {
    await using f = await field();
    writeExecutable(join(f.bin, "record-setup"), RECORDER);
    writeExecutable(join(f.bin, "second-step"), `#!/bin/sh\ntest -f .setup-env && echo second saw the first\n`);
    setConfig(f, { camp_setup: [["record-setup", "--frozen", "two words"], ["second-step"]] });
    const r = await f.run(["dispatch", "fix it"], { env: { ...f.env, SETUP_EXTRA: "from the caller" } });
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    const camp = f.task(id).camp_path!;
    expect(readFileSync(join(camp, ".setup-env"), "utf8")).toBe(`pwd=${camp}\ntask=${id}\ncamp=${camp}\nproject=${f.project}\nextra=from the caller\nargs=--frozen two words\n`);
    const log = join(f.paths.stateDir, "logs", `${id}-setup.log`);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const text = readFileSync(log, "utf8");
    // Its stdout and stderr come through two pipes: lines of the two keep no order between them
    // (one run of four under two CPU hogs logged the warning first); each command's block does.
    const stdoutFirst = "installing dependencies\nwarning: something minor\n";
    const stderrFirst = "warning: something minor\ninstalling dependencies\n";
    const blocks = (lines: string) => `$ record-setup --frozen "two words"\n${lines}exited 0\n$ second-step\nsecond saw the first\nexited 0\n`;
    expect([blocks(stdoutFirst), blocks(stderrFirst)].some((b) => text.includes(b))).toBe(true);
    expect(f.task(id).status).not.toBe("failed");
  });

  test("a failing one fails the dispatch in one line: task failed with the redacted tail, camp back in the pool, no pane", async () => {
    await using f = await field();
    writeExecutable(join(f.bin, "fail-setup"), FAILER);
    writeExecutable(join(f.bin, "never-runs"), `#!/bin/sh\ntouch "$VX_CAMP/.never"\n`);
    setConfig(f, { camp_setup: [["fail-setup", "--hard"], ["never-runs"]] });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toBe("vx: camp setup failed: fail-setup --hard exited 3: fatal: could not resolve registry\n");
    const id = taskIdOf(r.stdout);
    expect(r.stdout).toContain("status=failed\n");
    const t = f.task(id);
    expect(t.status).toBe("failed");
    expect(t.output).toContain("step one ok");
    expect(t.output).toContain("fatal: could not resolve registry");
    expect(t.output).not.toContain("hunter2hunter2");
    expect(t.output).toContain(
      `[vexillum] camp setup failed: fail-setup --hard exited 3: fatal: could not resolve registry - marked failed; setup log: ${join(f.paths.stateDir, "logs", `${id}-setup.log`)}`,
    );
    expect(existsSync(join(t.camp_path!, ".never"))).toBe(false);
    expect(readPool(f.paths).slots.filter((s) => s.leased_by)).toEqual([]);
    expect(git(f.project, "branch", "--list", `vexillum/${id}`)).toBe("");
    expect(t.herdr_tab_id).toBeUndefined();
    expect(readFileSync(join(f.paths.stateDir, "logs", `${id}-setup.log`), "utf8")).toContain("exited 3\n");
    // The camp goes to the next dispatch.
    setConfig(f, { camp_setup: [] });
    const next = await f.run(["dispatch", "again"]);
    expect(next.code).toBe(0);
    expect(f.task(taskIdOf(next.stdout)).camp_slot).toBe(t.camp_slot);
    expect(listTasks(f.paths).length).toBe(2);
  });

  test("one over camp_setup_timeout is killed and fails the dispatch", async () => {
    await using f = await field();
    setConfig(f, { camp_setup: [["sleep", "300"]], camp_setup_timeout: 1 });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toBe("vx: camp setup failed: sleep 300 timed out after 1s\n");
    expect(f.task(taskIdOf(r.stdout)).status).toBe("failed");
  });

  test("a redispatch sets its new camp up again", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "interrupted" });
    writeExecutable(join(f.bin, "record-setup"), RECORDER);
    setConfig(f, { camp_setup: [["record-setup"]] });
    const r = await f.run(["redispatch", task.id]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(join(f.task(task.id).camp_path!, ".setup-env"), "utf8")).toContain(`task=${task.id}\n`);
  });

  test("a .worktreeinclude naming a dependency tree fails the dispatch before anything is copied", async () => {
    await using f = await field();
    const p = f.project;
    commitIgnores(p, "node_modules/\n");
    for (let i = 0; i <= 1000; i++) write(join(p, "node_modules", `m${i % 10}`, `f${i}.js`), "x\n");
    write(join(p, ".worktreeinclude"), "node_modules/\n");
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toBe("vx: camp setup failed: .worktreeinclude names 1001 ignored files (more than 1000) - name files and small directories, and install dependencies with camp_setup\n");
    const t = f.task(taskIdOf(r.stdout));
    expect(t.status).toBe("failed");
    expect(existsSync(join(t.camp_path!, "node_modules"))).toBe(false);
    expect(readPool(f.paths).slots.filter((s) => s.leased_by)).toEqual([]);
  });

  test("the tmux launch sets the camp up too, before its session exists", async () => {
    await using f = await tmuxField();
    writeExecutable(join(f.bin, "record-setup"), RECORDER);
    setConfig(f, { camp_setup: [["record-setup"]] });
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    expect(readFileSync(join(f.task(id).camp_path!, ".setup-env"), "utf8")).toContain(`task=${id}\n`);
  });
});

// The forum server's upkeep on real files (FOR-01, STA-05, SEN-22): the journal a restart
// completes, the sweep of abandoned temporaries, and a binary check that does not take a
// transient error for a change.
import { describe, expect, test } from "bun:test";
import { existsSync, lutimesSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deliverMessage, recoverDeliveries } from "../../src/forum/deliver";
import { acknowledge, writeMessage } from "../../src/forum/inbox";
import { projectPaths } from "../../src/state/paths";
import { sweepTemps } from "../../src/state/sweep";
import { REPO } from "../helpers";

const tmp = () => realpathSync(mkdtempSync(join(tmpdir(), "vx-upkeep-")));
const HOUR = 3600_000;
const NOW = Date.parse("2026-12-01T12:00:00Z");

function world() {
  const root = join(tmp(), ".vexillum");
  const paths = projectPaths(root, "/srv/demo");
  const msg = (uid: string) => ({ uid, session: "plan.md-0123abcd", file: "plan.md", text: `text of ${uid}`, received_at: "2026-12-01T11:00:00Z" });
  const pending = (uid: string, body?: string) => {
    const path = join(paths.forumWakesDir, `.plan.md-0123abcd.${uid}.pending`);
    mkdirSync(paths.forumWakesDir, { recursive: true });
    writeFileSync(path, body ?? JSON.stringify({ session: "plan.md-0123abcd", uid, file: "plan.md", ended: false, detected_at: "2026-12-01T11:00:00Z" }));
    return path;
  };
  const wake = () => join(paths.forumWakesDir, "plan.md-0123abcd.json");
  return { paths, msg, pending, wake };
}

describe("a message's journal (FOR-01)", () => {
  test("delivered: message and wake on disk, no pending file left", () => {
    const w = world();
    const rang = deliverMessage(w.paths, w.msg("m1-aaaaaaaa"), false, NOW);
    expect(rang).toMatchObject({ session: "plan.md-0123abcd", count: 1, ended: false, detected_at: "2026-12-01T12:00:00.000Z" });
    expect(readdirSync(w.paths.forumWakesDir)).toEqual(["plan.md-0123abcd.json"]);
    expect(existsSync(join(w.paths.forumInboxDir, "plan.md-0123abcd", "m1-aaaaaaaa.json"))).toBe(true);
  });

  test("a pending wake whose message is on disk and unread is rung with the message's time; one with no message, or a read one, is dropped", () => {
    const w = world();
    writeMessage(w.paths, w.msg("m1-aaaaaaaa"));
    const rung = w.pending("m1-aaaaaaaa");
    expect(recoverDeliveries(w.paths)).toEqual({ rung: ["plan.md-0123abcd/m1-aaaaaaaa"], dropped: [], failed: [] });
    expect(existsSync(rung)).toBe(false);
    expect(JSON.parse(readFileSync(w.wake(), "utf8"))).toMatchObject({ count: 1, detected_at: "2026-12-01T11:00:00.000Z" });

    // The message never reached the inbox (no 201 was given): nothing to ring.
    const v = world();
    const lost = v.pending("m2-bbbbbbbb");
    expect(recoverDeliveries(v.paths)).toEqual({ rung: [], dropped: ["plan.md-0123abcd/m2-bbbbbbbb"], failed: [] });
    expect(existsSync(lost)).toBe(false);
    expect(existsSync(v.wake())).toBe(false);

    // The commander read it already (vx forum inbox --ack): no wake for it.
    const r = world();
    writeMessage(r.paths, r.msg("m3-cccccccc"));
    acknowledge(r.paths, ["m3-cccccccc"], NOW, process.pid);
    r.pending("m3-cccccccc");
    expect(recoverDeliveries(r.paths)).toMatchObject({ rung: [], dropped: ["plan.md-0123abcd/m3-cccccccc"] });
    expect(existsSync(r.wake())).toBe(false);
  });

  test("a pending file that cannot be read is dropped and reported; one naming another message is dropped", () => {
    const w = world();
    writeMessage(w.paths, w.msg("m1-aaaaaaaa"));
    const bad = w.pending("m1-aaaaaaaa", "{ half");
    const other = w.pending("m9-99999999", JSON.stringify({ session: "plan.md-0123abcd", uid: "m1-aaaaaaaa", file: "plan.md", ended: false, detected_at: "2026-12-01T11:00:00Z" }));
    const r = recoverDeliveries(w.paths);
    expect(r.failed).toEqual([expect.stringContaining(`plan.md-0123abcd/m1-aaaaaaaa: ${bad}: invalid JSON`)]);
    expect(r.dropped).toEqual(["plan.md-0123abcd/m9-99999999"]);
    expect(existsSync(bad) || existsSync(other)).toBe(false);
  });
});

describe("abandoned temporary files (STA-05)", () => {
  test("only vx's own temporary names, regular files, at least the age given; never through a link", () => {
    const root = tmp();
    const dir = join(root, "forums", "s");
    mkdirSync(dir, { recursive: true });
    const at = (path: string, ms: number) => {
      writeFileSync(path, "x");
      utimesSync(path, new Date(ms), new Date(ms));
      return path;
    };
    const old = at(join(dir, ".transcript.jsonl.0123456789abcdef.tmp"), NOW - HOUR);
    const fresh = at(join(dir, ".session.json.0123456789abcdef.tmp"), NOW - 1000);
    const users = at(join(dir, ".notes.tmp"), NOW - HOUR);
    const short = at(join(dir, ".x.json.0123.tmp"), NOW - HOUR);
    mkdirSync(join(dir, ".d.json.0123456789abcdef.tmp"));
    const outside = at(join(root, "outside"), NOW - HOUR);
    const link = join(dir, ".l.json.0123456789abcdef.tmp");
    symlinkSync(outside, link);
    lutimesSync(link, new Date(NOW - HOUR), new Date(NOW - HOUR));
    // A linked directory below the root is never entered.
    const elsewhere = tmp();
    const victim = at(join(elsewhere, ".v.json.0123456789abcdef.tmp"), NOW - HOUR);
    symlinkSync(elsewhere, join(root, "forums", "linked"));

    const r = sweepTemps(root, [dir, join(root, "forums", "linked"), join(root, "absent")], NOW, 10 * 60_000);
    expect(r.removed).toEqual([old]);
    expect(r.failed).toEqual([expect.stringContaining(join(root, "forums", "linked"))]);
    for (const p of [fresh, users, short, link, outside, victim, join(dir, ".d.json.0123456789abcdef.tmp")]) expect(existsSync(p)).toBe(true);
  });

  test("a clock stepped back makes every file young: nothing is removed", () => {
    const root = tmp();
    const path = join(root, ".a.json.0123456789abcdef.tmp");
    writeFileSync(path, "x");
    utimesSync(path, new Date(NOW), new Date(NOW));
    expect(sweepTemps(root, [root], NOW - 24 * HOUR, 10 * 60_000).removed).toEqual([]);
    expect(sweepTemps(root, [root], NOW + HOUR, 10 * 60_000).removed).toEqual([path]);
  });
});

describe("the binary check under a descriptor shortage (SEN-22, FOR-05)", () => {
  test("EMFILE while resolving the executable is no change; a missing one still is", () => {
    const script = join(tmp(), "emfile.ts");
    writeFileSync(
      script,
      `import { closeSync, openSync } from "node:fs";
import { buildOf, changeReason } from ${JSON.stringify(join(REPO, "src/sentinel/build.ts"))};
const build = buildOf(process.execPath)!;
const held: number[] = [];
try { for (;;) held.push(openSync("/dev/null", "r")); } catch {}
const full = changeReason(build) ?? null;
for (const fd of held) closeSync(fd);
console.log(JSON.stringify({ full, gone: changeReason({ ...build, executable: "/nonexistent/vx" }) ?? null }));
`,
    );
    const run = Bun.spawnSync(["prlimit", "--nofile=64:64", process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual({ full: null, gone: "/nonexistent/vx is gone" });
  });
});

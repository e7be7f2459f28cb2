import { describe, expect, test } from "bun:test";
import { SettingsShapeError } from "../../src/errors";
import { PI_SKILLS_ENTRY, mergePiSettings } from "../../src/harnesses/pi-settings";
import { SKILL_DIR, SKILL_FILES, skillHash } from "../../src/scaffold/skill";

const ALL = Object.values(SKILL_FILES).join("\n");

describe("the vexillum skill files", () => {
  test("four files in the skill dir", () => {
    expect(SKILL_DIR).toBe(".claude/skills/vexillum");
    expect(Object.keys(SKILL_FILES).sort()).toEqual(["SKILL.md", "landing.md", "sentinel.md", "striking.md"]);
  });

  test("SKILL.md has Claude Code skill front matter", () => {
    const front = /^---\n([\s\S]*?)\n---\n/.exec(SKILL_FILES["SKILL.md"])?.[1] ?? "";
    expect(front).toMatch(/^name: vexillum$/m);
    const description = /^description: (.+)$/m.exec(front)?.[1] ?? "";
    for (const when of ["dispatch", "land", "strike", "wake"]) expect(description).toContain(when);
  });

  test("SKILL.md points at every guide", () => {
    for (const guide of ["sentinel.md", "landing.md", "striking.md"]) expect(SKILL_FILES["SKILL.md"]).toContain(`\`${guide}\``);
  });

  test.each(Object.entries(SKILL_FILES))("%s stays short", (_path, text) => {
    expect(text.split("\n").length).toBeLessThan(120);
  });

  // SPEC section 12: usage lines and flags the commander copies.
  test.each([
    "vx dispatch <prompt...> [--kind mission|scout] [--harness claude|codex|pi|opencode] [--backend herdr|tmux] [--model <m>] [--effort <e>]",
    "`vx status`",
    "`vx status --json`",
    "`vx prompt <task-id> <text...>`",
    "`vx decide <task-id> <answer...>`",
    "`vx decide <task-id> --dismiss`",
    "`vx redispatch <task-id>`",
    "`vx land <task-id>`",
    "`vx strike <task-id> [--force] [--discard]`",
    "`vx strike <task-id> --discard`",
    "`vx strike <task-id>`",
    "`vx wait <task-id> [--poll-interval <s>] [--max-wait <s>] [--log-file <path>] [--pane-tail-lines <n>]`",
    "`vx forum inbox`",
    "`vx forum inbox --json`",
    "`vx forum inbox --ack <uid>`",
    "`vx sentinel await`",
    "`vx sentinel drain`",
    "`vx doctor`",
    "`haiku`, `sonnet`, `opus`, `fable`",
    "`low`, `medium`, `high`, `xhigh`, `max`",
  ])("documents %s", (usage) => {
    expect(ALL).toContain(usage);
  });

  // Messages quoted verbatim from docs/spec.md, so the commander recognises them.
  test.each([
    ["SKILL.md", "`task_id=<id> kind=<kind> camp_slot=<n> camp_branch=<branch>`"],
    ["SKILL.md", "`still running past the quick-settle probe - the sentinel will record its final status`"],
    ["landing.md", "`landed: fast-forwarded <dir> to <branch>`"],
    ["landing.md", "`<branch> is not a fast-forward of <base> and rebasing it would conflict in <file>, <file> - have the soldier rebase <branch> onto <base>, then retry`"],
    ["landing.md", "`land stopped at task <id>: <its refusal>; not tried: <id>, <id>`"],
    ["landing.md", "`project checkout <dir> has uncommitted changes, refusing to land <branch>`"],
    ["landing.md", "`project checkout <dir> is on <current>, not <base> - check out <base>, then retry`"],
    ["landing.md", "`task <id> is a scout - scouts report, they do not land; strike it once you have read its report`"],
    ["landing.md", "`task <id> is shipped - landing a pull request is not supported yet`"],
    ["landing.md", "`land refused: <reason>`"],
    ["landing.md", "`landed, but automatic strike failed: <reason> - retry with 'vx strike <id>'`"],
    ["landing.md", '`vx: now diverged from <base>: <id>, <id>; vx land rebases a clean one itself, prompt only those it refuses (vx prompt <id> "rebase on <base>")`'],
    ["landing.md", "`    landing: <fast-forwards <base>|diverged from <base>>; <merges cleanly|would conflict|merge unknown>; <n> file[s] changed; <no overlap|overlaps <id>, <id>...>`"],
    ["landing.md", "Land first the mission that overlaps the fewest others"],
    ["landing.md", "Prompt every one it refuses to rebase in that"],
    ["striking.md", "`struck: camp returned to the pool, herdr pane closed.`"],
    ["striking.md", "`struck: camp returned to the pool, tmux session closed.`"],
    ["striking.md", "`strike refused: task <id>'s camp is not leased (already struck)`"],
    ["striking.md", "`strike refused: camp of task <id> has uncommitted changes`"],
    ["striking.md", "`strike refused: <branch> is not landed in <base> - land it first, or strike with --discard (only with the general's approval)`"],
    ["striking.md", "`strike refused: scout task <id> has no report at <path>`"],
    ["striking.md", "`task <id>'s camp was already struck, its soldier is gone - dispatch a new one instead`"],
    ["sentinel.md", "`VX_WAIT_DONE: task=<id> status=<s>`"],
    ["sentinel.md", "`VX_WAIT_TERMINAL: task=<id> status=<s>`"],
    ["sentinel.md", '`{"decision":"block","reason":"<reason text>"}`'],
  ])("%s quotes %s", (path, message) => {
    expect(SKILL_FILES[path]).toContain(message);
  });

  test("sentinel.md quotes the WAK-11 reason text exactly", () => {
    const text = SKILL_FILES["sentinel.md"];
    expect(text).toContain(
      "```\nA vexillum soldier's status changed:\n- <kind> <task_id>: <old_status> -> <new_status>\nCheck on it (and report to the general, or land/strike as appropriate) before ending your turn.\n```",
    );
    expect(text).toContain("```\n  project: <origin>\n  report: <report_path>\n  note: <note>\n```");
    expect(text).toContain(
      "```\nForum feedback is waiting for you:\nforum session <file>: <N> new messages (ended: <true|false>). Run vx forum inbox.\nRead it, act on it, and acknowledge it with vx forum inbox --ack <uid> before ending your turn.\n```",
    );
  });

  test("sentinel.md covers every status a wake can carry", () => {
    for (const status of ["done", "blocked", "unconfirmed", "interrupted", "failed"]) {
      expect(SKILL_FILES["sentinel.md"]).toContain(`**${status}**`);
    }
  });

  test("every vx command named exists (CLI-02)", () => {
    const known = new Set(["init", "upgrade", "doctor", "dispatch", "redispatch", "decide", "prompt", "status", "land", "strike", "sentinel", "wait", "report", "forum", "resume"]);
    const named = [...ALL.matchAll(/`vx ([a-z-]+)(?: ([a-z-]+)\b(?![./]))?/g)];
    expect(named.length).toBeGreaterThan(20);
    for (const [, command, sub] of named) {
      expect(known.has(command)).toBe(true);
      if (command === "sentinel" && sub !== undefined) expect(["await", "drain"]).toContain(sub);
      // `vx forum <file>` names a file, not a subcommand.
      if (command === "forum" && sub !== undefined) expect(["inbox", "reply", "end", "list", "board"]).toContain(sub);
    }
  });

  test("every flag mentioned is a real vx flag (or one of the git flags shown)", () => {
    const vxFlags = ["kind", "harness", "backend", "model", "effort", "json", "dismiss", "force", "discard", "ack", "poll-interval", "max-wait", "log-file", "pane-tail-lines", "all", "profile"];
    const gitFlags = ["ff-only", "oneline", "short"];
    const allowed = new Set([...vxFlags, ...gitFlags]);
    const flags = [...ALL.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]);
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags) expect(allowed.has(flag)).toBe(true);
  });

  test("destructive steps ask the general first", () => {
    expect(SKILL_FILES["sentinel.md"]).toMatch(/Redispatch is destructive[^.]*\. Ask before running it\./);
    expect(SKILL_FILES["landing.md"]).toContain("Land only with the general's approval, unless they told you otherwise");
    expect(SKILL_FILES["striking.md"]).toContain("only with the general's explicit approval");
  });
});

describe("skillHash", () => {
  test("SHA-256 over path NUL content NUL in sorted path order", async () => {
    const files = { "b.md": "B", "a.md": "A" };
    const manual = new Bun.CryptoHasher("sha256").update("a.md\0A\0b.md\0B\0").digest("hex");
    expect(skillHash(files)).toBe(manual);
  });

  test("independent of insertion order, sensitive to content and to the path boundary", () => {
    const base = skillHash({ "a.md": "x", "b.md": "y" });
    expect(skillHash({ "b.md": "y", "a.md": "x" })).toBe(base);
    expect(skillHash({ "a.md": "x", "b.md": "y!" })).not.toBe(base);
    expect(skillHash({ "a.m": "dx" })).not.toBe(skillHash({ "a.md": "x" }));
  });

  test("stable for the embedded skill", () => {
    const hash = skillHash(SKILL_FILES);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(skillHash({ ...SKILL_FILES })).toBe(hash);
  });
});

describe("Pi settings (SCF-07)", () => {
  test.each([
    ["empty", {}, { skills: [PI_SKILLS_ENTRY] }, true],
    ["other keys kept, new key last", { theme: "dark", packages: ["x"] }, { theme: "dark", packages: ["x"], skills: [PI_SKILLS_ENTRY] }, true],
    ["appended to existing skills", { skills: ["~/my-skills"], theme: "light" }, { skills: ["~/my-skills", PI_SKILLS_ENTRY], theme: "light" }, true],
    ["already present", { skills: [PI_SKILLS_ENTRY] }, { skills: [PI_SKILLS_ENTRY] }, false],
    ["present with a trailing slash", { skills: ["../.claude/skills/"] }, { skills: ["../.claude/skills/"] }, false],
    ["force-included", { skills: ["+../.claude/skills"] }, { skills: ["+../.claude/skills"] }, false],
    ["excluded by the user", { skills: ["!../.claude/skills"] }, { skills: ["!../.claude/skills"] }, false],
  ])("%s", (_name, input, want, changed) => {
    const snapshot = structuredClone(input);
    const out = mergePiSettings(input);
    expect(out.next).toEqual(want as Record<string, unknown>);
    expect(Object.keys(out.next)).toEqual(Object.keys(want));
    expect(out.changed).toBe(changed);
    expect(input).toEqual(snapshot);
    expect(mergePiSettings(out.next)).toEqual({ next: out.next, changed: false });
  });

  test.each([
    ["array root", []],
    ["string skills", { skills: "../.claude/skills" }],
    ["null skills", { skills: null }],
  ])("refuses %s", (_name, input) => {
    expect(() => mergePiSettings(input)).toThrow(SettingsShapeError);
  });
});

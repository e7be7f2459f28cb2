// `vx completion bash|zsh|fish` (DIST-04): scripts generated from the command registry, run in the
// real shells. bash is always there; zsh and fish only where installed (else a structural check).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allCommands } from "../../src/commands";
import { subcommandsOf } from "../../src/completion/spec";
import { COMMANDER_NAMES, LISTED_HARNESS_NAMES } from "../../src/harnesses/names";
import { REPO, type Sandbox, VX_BIN, sandbox, vx } from "../helpers";

const COMMANDS = await allCommands();
const ZSH = Bun.which("zsh");
const FISH = Bun.which("fish");

type Shell = "bash" | "zsh" | "fish";

// compinit's dump, shared by this file's zsh runs: the first writes it, the others load it.
const compdumpDir = mkdtempSync(join(tmpdir(), "vx-zcompdump-"));
afterAll(() => rmSync(compdumpDir, { recursive: true, force: true }));

/** What the shell offers on Tab at the end of `line` (`vx ...`), in a sandbox with `src/` in its cwd. */
type Complete = (line: string) => Promise<string[]>;

async function run(argv: string[], s: Sandbox): Promise<string> {
  const p = Bun.spawn(argv, { cwd: s.project, env: s.env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${argv[0]} exited ${code}: ${err}`);
  return out;
}

// Each shell's script, made once by the binary (it needs no HOME or project): the tests below load it
// from a file; "loaded as users load it" runs the binary's output straight into bash and fish.
const scriptsDir = mkdtempSync(join(tmpdir(), "vx-completion-"));
afterAll(() => rmSync(scriptsDir, { recursive: true, force: true }));
const scripts = new Map<Shell, string>();
function scriptFile(shell: Shell): string {
  const known = scripts.get(shell);
  if (known) return known;
  const r = Bun.spawnSync([VX_BIN, "completion", shell], { env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`vx completion ${shell} exited ${r.exitCode}: ${r.stderr.toString()}`);
  const file = join(scriptsDir, `vx.${shell}`);
  writeFileSync(file, r.stdout);
  scripts.set(shell, file);
  return file;
}

/** As readline splits the line: at spaces, and around `=` (it is in COMP_WORDBREAKS). */
const compWords = (line: string) => line.split(" ").flatMap((w) => w.split(/(=)/).filter((p, _, a) => p !== "" || a.length === 1));
// bash calls _vx with COMP_WORDS once the script is loaded.
const BASH_COMPLETE = 'COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _vx && printf "%s\\n" "${COMPREPLY[@]}"';
const fishMatches = (out: string) =>
  out
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0] as string);

const completers: Record<Shell, (s: Sandbox) => Complete> = {
  bash: (s) => async (line) => {
    const out = await run(["bash", "-c", `source "$VX_SCRIPT" && ${BASH_COMPLETE}`, "bash", ...compWords(line)], withScript(s, "bash"));
    return out.split("\n").filter(Boolean);
  },
  zsh: (s) => async (line) => {
    const out = await run(["zsh", "-f", join(REPO, "test", "fixtures", "zsh-complete.zsh"), scriptFile("zsh"), line, join(compdumpDir, "zcompdump")], s);
    return out.split("\n").filter(Boolean);
  },
  fish: (s) => async (line) => {
    return fishMatches(await run(["fish", "--no-config", "-c", 'source "$VX_SCRIPT"; complete -C"$argv[1]"', line], withScript(s, "fish")));
  },
};

function withScript(s: Sandbox, shell: Shell): Sandbox {
  return { ...s, env: { ...s.env, VX_SCRIPT: scriptFile(shell) } };
}

function shellSandbox(shell: Shell): Sandbox {
  const s = sandbox({ git: false });
  mkdirSync(join(s.project, "src"));
  writeFileSync(join(s.project, "src", "a.ts"), "");
  s.env.VX = VX_BIN;
  // The shell under test, linked into the sandbox's own PATH (zsh under zpty starts `zsh` by name).
  const real = shell === "zsh" ? ZSH : shell === "fish" ? FISH : undefined;
  if (real) symlinkSync(real, join(s.bin, shell));
  return s;
}

const sorted = (xs: string[]) => [...xs].sort();
const installed: Record<Shell, boolean> = { bash: true, zsh: Boolean(ZSH), fish: Boolean(FISH) };

for (const shell of ["bash", "zsh", "fish"] as const) {
  describe.skipIf(!installed[shell])(`vx completion ${shell}, in ${shell}`, () => {
    test("command words: every registered command, and a prefix narrows them", async () => {
      using s = shellSandbox(shell);
      const complete = completers[shell](s);
      const all = (await complete("vx ")).filter((w) => !w.startsWith("-"));
      expect(sorted(all)).toEqual(sorted(COMMANDS.map((c) => c.name)));
      expect(await complete("vx dis")).toEqual(["dispatch"]);
      expect(await complete("vx fo")).toEqual(["forum"]);
    });

    test("subcommands: sentinel drain|await|stop, forum reply|end|list|board|stop|serve|inbox, completion's shells", async () => {
      using s = shellSandbox(shell);
      const complete = completers[shell](s);
      expect(sorted(await complete("vx sentinel "))).toEqual(["await", "drain", "stop"]);
      expect(sorted(await complete("vx forum "))).toEqual(["board", "end", "inbox", "list", "reply", "serve", "stop"]);
      expect(sorted(await complete("vx completion "))).toEqual(["bash", "fish", "zsh"]);
    });

    test("flags of the command typed, and the values a flag takes", async () => {
      using s = shellSandbox(shell);
      const complete = completers[shell](s);
      expect(await complete("vx dispatch --k")).toEqual(["--kind"]);
      expect(sorted(await complete("vx dispatch --kind "))).toEqual(["mission", "scout"]);
      expect(sorted(await complete("vx dispatch --harness "))).toEqual(sorted([...LISTED_HARNESS_NAMES]));
      expect(sorted(await complete("vx init --no"))).toEqual(["--no-skills", "--notify"]);
      expect(await complete("vx forum inbox --a")).toEqual(["--ack"]);
      // A prompt word that is another command's name does not switch to that command's flags.
      expect(sorted(await complete("vx dispatch init --"))).toEqual(["--backend", "--effort", "--harness", "--help", "--kind", "--model", "--on", "--profile", "--stdin"]);
      expect((await complete("vx wait --log-file sr")).map((w) => w.replace(/\/$/, ""))).toEqual(["src"]);
    });

    test("--flag=value is completed too", async () => {
      using s = shellSandbox(shell);
      const complete = completers[shell](s);
      const got = await complete("vx init --commander=");
      expect(sorted(got.map((w) => w.replace(/^--commander=/, "")))).toEqual(sorted([...COMMANDER_NAMES]));
      expect(sorted((await complete("vx init --commander=co")).map((w) => w.replace(/^--commander=/, "")))).toEqual(sorted(COMMANDER_NAMES.filter((n) => n.startsWith("co"))));
    });
  });
}

describe("vx completion", () => {
  test.each([
    [[], "vx: missing shell, expected bash, zsh or fish\n"],
    [["tcsh"], 'vx: unknown shell "tcsh", expected bash, zsh or fish\n'],
    [["bash", "extra"], 'vx: unexpected argument "extra"\n'],
  ])("%p is a usage error naming the shells, with the usage", async (args, message) => {
    using s = sandbox();
    const r = await vx(["completion", ...args], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${message}Usage: vx completion bash|zsh|fish\n\nPrint a shell completion script (bash, zsh or fish)\n`);
  });

  test("needs no HOME, no project and no state root", async () => {
    using s = sandbox({ git: false });
    const { HOME: _, ...env } = s.env;
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await vx(["completion", shell], { cwd: s.project, env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.length).toBeGreaterThan(500);
    }
    const r = await vx(["completion", "bash"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(existsSync(join(s.home, ".vexillum"))).toBe(false);
  });

  test("loaded as users load it, straight from the binary (bash's source <(...), fish's | source): the same matches", async () => {
    using s = shellSandbox("bash");
    const line = "vx dispatch --kind ";
    const bash = await run(["bash", "-c", `source <("$VX" completion bash) && ${BASH_COMPLETE}`, "bash", ...compWords(line)], s);
    expect(sorted(bash.split("\n").filter(Boolean))).toEqual(["mission", "scout"]);
    expect(sorted(await completers.bash(s)(line))).toEqual(["mission", "scout"]);
    if (!FISH) return;
    using f = shellSandbox("fish");
    const fish = fishMatches(await run(["fish", "--no-config", "-c", '"$VX" completion fish | source; complete -C"$argv[1]"', line], f));
    expect(sorted(fish)).toEqual(["mission", "scout"]);
  });

  test("the bash script parses (bash -n)", async () => {
    using s = sandbox();
    const script = (await vx(["completion", "bash"], { cwd: s.project, env: s.env })).stdout;
    const file = join(s.home, "vx.bash");
    writeFileSync(file, script);
    expect(await run(["bash", "-n", file], s)).toBe("");
  });

  // Where zsh or fish is not installed the tests above skip; this still proves every command,
  // subcommand and flag of the registry reaches each script.
  test.each(["zsh", "fish"])("the %s script names every command, subcommand and flag", async (shell) => {
    using s = sandbox();
    const script = (await vx(["completion", shell], { cwd: s.project, env: s.env })).stdout;
    for (const c of COMMANDS) {
      if (shell === "zsh") expect(script).toContain(`    (${c.name})\n      _arguments -S`);
      else expect(script).toContain(`complete -c vx -n __vx_no_command -a ${c.name} -d '`);
      for (const sub of subcommandsOf(c)) expect(script).toMatch(new RegExp(`[( ']${sub}[ )']`));
      for (const [name, def] of Object.entries(c.args)) {
        if (def.type === "positional") continue;
        expect(script).toContain(shell === "zsh" ? `--${name}` : `-l ${name}`);
      }
    }
    if (shell === "zsh") {
      expect(script).toStartWith("#compdef vx\n");
      expect(script).toContain("compdef _vx vx");
    }
  });
});

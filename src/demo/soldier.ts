/**
 * The `demo` harness's soldier program, like an agent's TUI where vx can see it, reporting each turn through its state hook
 * (run via `/bin/sh -c`). Scripted by the prompt's own lines; nothing else is understood:
 *   `write <file>: <text>`   writes the file and commits it
 *   `rebase onto <branch>`   rebases the camp's branch, resolving a conflict by keeping both sides
 *   `ask: <question>`        ends the turn with a `needs-decision:` line
 *   `report: <text>`         writes the scout report at the path vx's block names
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { shellQuote } from "../harnesses/hook-shell";
import { SEPARATOR } from "../soldiers/prompt-text";
import { DEMO_PROMPT, DEMO_REPORT_ENV } from "../harnesses/demo";
import { realClock, scaled } from "../time";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const SPIN = ["✻", "✶", "✳", "✢"];

type Directive = { kind: "write"; file: string; text: string } | { kind: "rebase"; onto: string } | { kind: "ask"; question: string } | { kind: "report"; text: string };

/** The script lines of a prompt: only the general's own text, never vx's blocks below it. */
export function directives(message: string): Directive[] {
  const own = message.split(`\n\n${SEPARATOR}\n`)[0] ?? "";
  const out: Directive[] = [];
  for (const raw of own.split("\n")) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^write\s+([\w./-]+):\s*(.+)$/i.exec(line)) && !isAbsolute(m[1]!) && !m[1]!.split("/").includes("..")) out.push({ kind: "write", file: m[1]!, text: m[2]! });
    else if ((m = /^rebase onto\s+([\w./-]+)\.?$/i.exec(line))) out.push({ kind: "rebase", onto: m[1]! });
    else if ((m = /^ask:\s*(.+)$/i.exec(line))) out.push({ kind: "ask", question: m[1]! });
    else if ((m = /^report:\s*(.+)$/i.exec(line))) out.push({ kind: "report", text: m[1]! });
  }
  return out;
}

/** The scout report's path, as vx's report block names it. */
export function reportFile(message: string): string | undefined {
  return /single Markdown file at: (\S+)/.exec(message)?.[1];
}

/** A conflicted file with both sides kept, ours first, markers and repeated lines dropped. */
export function keepBoth(text: string): string {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (/^(<{7}|={7}|>{7}|\|{7})( |$)/.test(line)) continue;
    if (line !== "" && out.includes(line)) continue;
    out.push(line);
  }
  return out.join("\n");
}

function print(text: string): void {
  process.stdout.write(text.replaceAll("\n", "\r\n"));
}

function git(args: string[]): { code: number; out: string } {
  const r = Bun.spawnSync(["git", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, GIT_EDITOR: "true" } });
  return { code: r.exitCode, out: `${r.stdout.toString()}${r.stderr.toString()}`.trim() };
}

/** The state hook, as a harness runs it: a shell command naming vx by path. */
async function hook(state: "working" | "idle"): Promise<void> {
  const vx = process.env[DEMO_REPORT_ENV];
  if (!vx) return;
  await Bun.spawn(["/bin/sh", "-c", `${shellQuote(vx)} report ${state}`], { stdout: "ignore", stderr: "ignore" }).exited;
}

/** Shows a spinner line with its timer for `ms`, then replaces it with the finished line. */
async function work(ms: number): Promise<void> {
  const start = realClock.now();
  let i = 0;
  while (realClock.now() - start < ms) {
    const secs = Math.floor((realClock.now() - start) / 1000);
    print(`\r\x1b[K${SPIN[i++ % SPIN.length]} Working… (${secs}s · esc to interrupt)`);
    await realClock.sleep(Math.min(250, ms - (realClock.now() - start)));
  }
  print(`\r\x1b[K✻ Worked for ${Math.max(1, Math.round(ms / 1000))}s\n`);
}

function step(title: string, result: string): void {
  print(`⏺ ${title}\n  ⎿  ${result.split("\n")[0] ?? ""}\n`);
}

function doWrite(d: Extract<Directive, { kind: "write" }>): void {
  mkdirSync(dirname(d.file), { recursive: true });
  writeFileSync(d.file, `${d.text}\n`);
  step(`Write(${d.file})`, d.text);
  git(["add", "--", d.file]);
  const c = git(["commit", "-q", "-m", `${d.file}: ${d.text}`]);
  step(`Bash(git commit -m "${d.file}: ${d.text}")`, c.code === 0 ? git(["log", "-1", "--oneline"]).out : c.out);
}

function doRebase(onto: string): void {
  let r = git(["rebase", onto]);
  step(`Bash(git rebase ${onto})`, r.code === 0 ? "rebased cleanly" : "conflict");
  // Each stopped commit: every conflicted file keeps both sides, then the rebase goes on.
  for (let round = 0; r.code !== 0 && round < 20; round++) {
    const files = git(["diff", "--name-only", "--diff-filter=U"]).out.split("\n").filter(Boolean);
    if (files.length === 0) break;
    for (const f of files) {
      writeFileSync(f, keepBoth(readFileSync(f, "utf8")));
      git(["add", "--", f]);
      step(`Edit(${f})`, "kept both sides of the conflict");
    }
    r = git(["rebase", "--continue"]);
  }
  step("Bash(git log -1 --oneline)", git(["log", "-1", "--oneline"]).out);
}

// The scout report's path, named once in the first prompt; later turns (an answer) write it.
let reportAt: string | undefined;

/** One turn: the message echoed, working reported, the script done, idle reported. */
async function turn(message: string, first: boolean): Promise<void> {
  reportAt ??= reportFile(message);
  print(`${message}\n\n`);
  await hook("working");
  const ds = directives(message);
  // The first turn outlasts dispatch's quick settle, so its end is the sentinel's to notice.
  await work(first ? scaled("quickSettle") + 1500 : 1500);
  let question: string | undefined;
  for (const d of ds) {
    if (d.kind === "write") doWrite(d);
    else if (d.kind === "rebase") doRebase(d.onto);
    else if (d.kind === "ask") question = d.question;
    else {
      const file = reportAt;
      if (!file) continue;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `# Report\n\n${d.text}\n`);
      step(`Write(${file.slice(file.lastIndexOf("/") + 1)})`, d.text);
    }
  }
  print(question ? `\nneeds-decision: ${question}\n\n` : `\n${ds.length ? "Done." : "Nothing in this prompt for a scripted soldier to do."}\n\n`);
  await hook("idle");
  print(`${DEMO_PROMPT} `);
}

/** `vx __demo-soldier`: runs until its pane is closed. */
export async function demoSoldier(): Promise<number> {
  print("vx demo soldier: a scripted stand-in for an AI coding agent (no model, no API key).\n");
  print(`It works in ${join(process.cwd())} and reports each turn with 'vx report'.\n\n`);
  // Bracketed paste on, as agents' TUIs ask for it: a pasted prompt arrives marked as one piece.
  print(`\x1b[?2004h${DEMO_PROMPT} `);
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  const input = inputReader();
  let first = true;
  let queue = Promise.resolve();
  return new Promise<number>((resolve) => {
    process.stdin.on("end", () => resolve(0));
    process.stdin.on("data", (chunk: Buffer) => {
      for (const message of input(chunk.toString("utf8"))) {
        const isFirst = first;
        first = false;
        queue = queue.then(() => turn(message, isFirst));
      }
    });
  });
}

/** A TUI's input box: typed or pasted text (a paste's line breaks arrive as CR) collects until an Enter outside a paste submits it. */
export function inputReader(): (chunk: string) => string[] {
  let pending = "";
  let pasting = false;
  let buf = "";
  return (chunk) => {
    const submitted: string[] = [];
    buf += chunk;
    for (;;) {
      if (buf.startsWith(PASTE_START)) [pasting, buf] = [true, buf.slice(PASTE_START.length)];
      else if (buf.startsWith(PASTE_END)) [pasting, buf] = [false, buf.slice(PASTE_END.length)];
      else if (PASTE_START.startsWith(buf) || PASTE_END.startsWith(buf))
        return submitted; // a marker cut short (or nothing): the rest comes later
      else {
        const ch = buf[0]!;
        buf = buf.slice(1);
        if (!pasting && (ch === "\r" || ch === "\n")) {
          const message = pending.trim();
          pending = "";
          if (message) submitted.push(message);
        } else {
          pending += ch === "\r" ? "\n" : ch;
        }
      }
    }
  };
}

// Everything a command touches outside its own logic, built once in `main` and passed down; tests build their own.
import { writeSync } from "node:fs";
import { resolve } from "node:path";
import { type Exec, realExec } from "./exec";
import type { Env } from "./state/paths";
import { type Clock, realClock } from "./time";
import { type Prompter, consolaPrompter, fancyTerminal } from "./ui/terminal";

export type Output = {
  /** Writes text as is; returns false when the stream is closed or unwritable. */
  write(text: string): boolean;
};

export type Deps = {
  env: Env;
  cwd: string;
  exec: Exec;
  clock: Clock;
  stdout: Output;
  stderr: Output;
  /** True when stdin is a terminal (consent questions are only asked then). */
  stdinIsTTY: boolean;
  /** stderr is a terminal: a person is watching, so a slow command says what it waits for. */
  progress?: boolean;
  /** Reads one line from stdin; undefined when input is closed. */
  readLine(): Promise<string | undefined>;
  /** Reads stdin to its end, at most `maxBytes` (more is cut there: the caller's size check then refuses it). */
  readAll?(maxBytes: number): Promise<string>;
  /** consola's prompts, present only when every stream is a terminal and NO_COLOR is unset. */
  prompter?: Prompter;
  /** True when stdout is a terminal and NO_COLOR is unset: reports may be drawn in colour. */
  colourOut?: boolean;
  /** The argv that re-runs this vx (the compiled binary, or bun plus the entry script). */
  self: string[];
  pid: number;
  ppid(): number;
};

function fdOutput(fd: 1 | 2): Output {
  return {
    write(text) {
      try {
        writeSync(fd, text);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** True in the compiled binary, whose entry lives in Bun's embedded filesystem. */
function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");
}

/** This vx's absolute path, symlinks NOT resolved: a sentinel must notice when its name now points elsewhere. */
export function selfExecutable(): string {
  if (!isCompiled()) return Bun.main;
  const argv0 = process.argv0;
  if (argv0.includes("/")) return resolve(process.cwd(), argv0);
  return Bun.which(argv0) ?? process.execPath;
}

async function readAllFromStdin(maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of Bun.stdin.stream()) {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes > maxBytes) break;
  }
  return Buffer.concat(chunks).toString("utf8");
}

function selfArgv(): string[] {
  return isCompiled() ? [selfExecutable()] : [process.execPath, Bun.main];
}

let stdinLines: AsyncIterator<string> | undefined;

async function readLineFromStdin(): Promise<string | undefined> {
  if (!stdinLines) {
    const { createInterface } = await import("node:readline");
    stdinLines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  }
  const next = await stdinLines.next();
  return next.done ? undefined : next.value;
}

export function realDeps(): Deps {
  return {
    env: process.env,
    cwd: process.cwd(),
    exec: realExec,
    clock: realClock,
    stdout: fdOutput(1),
    stderr: fdOutput(2),
    // A getter: touching process.stdin builds a stream, which costs every command start-up.
    get stdinIsTTY() {
      return (require("node:tty") as typeof import("node:tty")).isatty(0);
    },
    get progress() {
      return (require("node:tty") as typeof import("node:tty")).isatty(2);
    },
    readLine: readLineFromStdin,
    readAll: readAllFromStdin,
    get prompter() {
      return fancyTerminal(process.env) ? consolaPrompter : undefined;
    },
    get colourOut() {
      return fancyTerminal(process.env, [1]);
    },
    self: selfArgv(),
    pid: process.pid,
    ppid: () => process.ppid,
  };
}

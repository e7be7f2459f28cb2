/**
 * For the wake templates vx writes into projects (Pi extension, OpenCode plugin), loaded in-process:
 * a fake `vx` on PATH whose n-th run follows line n of a script (wake, giveup, hang, quick), a
 * temp dir, a git repo, and the log of every await it ran. A loaded template's `node:child_process`
 * is an observing copy, so a test can tell when the template has handled an await's exit and
 * whether it started another, with no clock.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FAKE_WAKE = "A vexillum soldier's status changed:\n- mission 0123456789abcdef: running -> done";
/** The wake of a `wake2` run: another soldier, so a test can tell which wake was sent. */
export const FAKE_WAKE_2 = "A vexillum soldier's status changed:\n- mission fedcba9876543210: running -> blocked";

/** What the observing `node:child_process` saw: processes spawned, and exits the template handled. */
export type Spawns = { spawned: number; handled: number };

// Spawns pass through to the real module. A close listener added once the caller's own code has
// run (a microtask later) fires after the caller's listeners: when it counts an exit, the
// template's handler of that exit has run, and any await it started there is already counted.
const OBSERVING_CHILD_PROCESS = `import * as cp from "node:child_process";
export const seen = { spawned: 0, handled: 0 };
export const execFile = cp.execFile;
export function spawn(...args: unknown[]): cp.ChildProcess {
  const proc = (cp.spawn as (...a: unknown[]) => cp.ChildProcess)(...args);
  seen.spawned++;
  queueMicrotask(() => proc.on("close", () => seen.handled++));
  return proc;
}
`;
const CHILD_PROCESS_IMPORT = 'from "node:child_process";';

export type WakeKit = {
  dir: string;
  /** One line per await run: `wake`, `wake2` (FAKE_WAKE_2), `giveup` (runs 2 s then exits 0), `hang` (until SIGTERM), `late` (SIGTERM makes it exit 2 with a wake), `waitwake` (a wake on trigger()), other: exit 0 at once. */
  script(lines: string[]): void;
  /** How many `hang`/`late` runs have their TERM trap set (wait for it before stopping one). */
  armed(): number;
  /** Lets a `waitwake` run exit 2 with its wake. */
  trigger(): void;
  /** `<cwd> sentinel await` per run, and `TERM` when a hanging one was stopped. */
  log(): string[];
  gitRepo(path: string): string;
  /** Writes `text` as a module file, its `node:child_process` the observing copy, and imports it afresh. */
  load<T>(name: string, text: string): Promise<T>;
  /** Spawns and handled exits of every module loaded so far. */
  spawns(): Spawns;
  restore(): void;
};

export function wakeKit(): WakeKit {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vx-wake-kit-")));
  const saved = { PATH: process.env.PATH, VX_TIME_SCALE: process.env.VX_TIME_SCALE, FAKE_VX_DIR: process.env.FAKE_VX_DIR };
  mkdirSync(join(dir, "bin"));
  writeFileSync(
    join(dir, "bin", "vx"),
    [
      "#!/bin/sh",
      "wake_msg() { printf 'A vexillum soldier%ss status changed:\\n- mission 0123456789abcdef: running -> done\\n' \"'\" >&2; }",
      'n=$(($(cat "$FAKE_VX_DIR/count" 2>/dev/null || echo 0) + 1)); echo "$n" > "$FAKE_VX_DIR/count"',
      'echo "$PWD $*" >> "$FAKE_VX_DIR/log"',
      'case "$(sed -n "${n}p" "$FAKE_VX_DIR/script")" in',
      "  wake) wake_msg; exit 2;;",
      "  wake2) printf 'A vexillum soldier%ss status changed:\\n- mission fedcba9876543210: running -> blocked\\n' \"'\" >&2; exit 2;;",
      "  giveup) sleep 2; exit 0;;",
      // `armed` counts runs whose TERM trap is set: a signal before that would kill them silently.
      // The loops end with the kit's dir, so a run the test never stopped does not outlive it.
      '  hang) trap \'echo TERM >> "$FAKE_VX_DIR/log"; exit 0\' TERM; echo x >> "$FAKE_VX_DIR/armed"; while [ -d "$FAKE_VX_DIR" ]; do sleep 0.05; done;;',
      // An await whose wake came in just as it was told to stop: it still exits 2 with the text.
      '  late) trap \'wake_msg; exit 2\' TERM; echo x >> "$FAKE_VX_DIR/armed"; while [ -d "$FAKE_VX_DIR" ]; do sleep 0.05; done;;',
      // A wake that comes when the test says so (trigger()).
      '  waitwake) while [ ! -e "$FAKE_VX_DIR/trigger" ] && [ -d "$FAKE_VX_DIR" ]; do sleep 0.05; done; [ -d "$FAKE_VX_DIR" ] || exit 0; rm -f "$FAKE_VX_DIR/trigger"; wake_msg; exit 2;;',
      "esac",
      "exit 0",
      "",
    ].join("\n"),
  );
  chmodSync(join(dir, "bin", "vx"), 0o755);
  writeFileSync(join(dir, "child-process.ts"), OBSERVING_CHILD_PROCESS);
  let seen: Spawns | undefined;
  process.env.PATH = `${join(dir, "bin")}:${saved.PATH ?? "/usr/bin:/bin"}`;
  // Retry every 100 ms; an await that ran 1.2 s or more counts as a give-up.
  process.env.VX_TIME_SCALE = "0.02";
  process.env.FAKE_VX_DIR = dir;
  return {
    dir,
    armed: () => {
      try {
        return readFileSync(join(dir, "armed"), "utf8").split("\n").filter(Boolean).length;
      } catch {
        return 0;
      }
    },
    trigger: () => writeFileSync(join(dir, "trigger"), ""),
    script: (lines) => writeFileSync(join(dir, "script"), `${lines.join("\n")}\n`),
    log: () => {
      try {
        return readFileSync(join(dir, "log"), "utf8").trim().split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
    gitRepo(path) {
      mkdirSync(path, { recursive: true });
      if (Bun.spawnSync(["git", "init", "-q", path]).exitCode !== 0) throw new Error(`git init ${path} failed`);
      return path;
    },
    async load<T>(name: string, text: string) {
      if (text.split(CHILD_PROCESS_IMPORT).length !== 2) throw new Error(`${name}: expected one import from node:child_process`);
      const file = join(dir, `${name}.ts`);
      writeFileSync(file, text.replace(CHILD_PROCESS_IMPORT, `from ${JSON.stringify(join(dir, "child-process.ts"))};`));
      seen ??= ((await import(join(dir, "child-process.ts"))) as { seen: Spawns }).seen;
      return (await import(file)).default as T;
    },
    spawns: () => ({ ...(seen ?? { spawned: 0, handled: 0 }) }),
    restore() {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

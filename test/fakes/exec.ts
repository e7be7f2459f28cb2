/**
 * The one Exec stub for in-process tests: the test lists every call the code under test must make
 * (exact argv, optionally the options that matter) with the answer each gets, and the stub fails
 * the test on any other call and on any listed call left unmade.
 *
 * Order: by default the calls must come in the order listed (`sequence`), since the order is part
 * of what most callers promise (look the agent up, then inspect its process). Code that walks a
 * directory (whose order the file system chooses) uses `set`: each listed call must come exactly
 * once, in any order.
 *
 * An unexpected call throws at once, and is also remembered, since the code under test may catch
 * the error and carry on; `verify()` reports both. The preload's `afterEach` verifies every stub a
 * test made, so a test cannot forget; a test may call `verify()` itself to check at a midpoint.
 */
import type { Exec, ExecOptions, ExecResult } from "../../src/exec";

export type ExecCall = { argv: string[]; opts?: ExecOptions };
type Expected = { argv: string[]; reply: ExecResult; opts?: Partial<ExecOptions> };

export type ExecStub = Exec & {
  /**
   * One more call the code must make, and its answer (exit 0 with empty output unless `reply`
   * says otherwise). When `opts` is given, each option it names must equal the call's.
   */
  expect(argv: string[], reply?: Partial<ExecResult>, opts?: Partial<ExecOptions>): ExecStub;
  /** Every call made so far, expected or not, with its options. */
  readonly calls: ExecCall[];
  /** Throws when a call was unexpected or a listed call is still unmade. */
  verify(): void;
};

const made = new Set<ExecStub>();

const show = (argv: string[]) => JSON.stringify(argv);

function optsMatch(want: Partial<ExecOptions> | undefined, got: ExecOptions | undefined): boolean {
  if (!want) return true;
  return Object.entries(want).every(([k, v]) => Bun.deepEquals((got as Record<string, unknown> | undefined)?.[k], v, true));
}

export function execStub(order: "sequence" | "set" = "sequence"): ExecStub {
  const pending: Expected[] = [];
  const calls: ExecCall[] = [];
  const wrong: string[] = [];
  const stub: ExecStub = {
    calls,
    expect(argv, reply = {}, opts) {
      pending.push({ argv, reply: { code: 0, stdout: "", stderr: "", ...reply }, opts });
      return stub;
    },
    async run(argv, opts) {
      calls.push({ argv, opts });
      const candidates = order === "sequence" ? pending.slice(0, 1) : pending;
      const i = candidates.findIndex((e) => Bun.deepEquals(e.argv, argv, true) && optsMatch(e.opts, opts));
      if (i === -1) {
        const next = order === "sequence" ? `expected next ${pending[0] ? show(pending[0].argv) : "no call"}` : `still expected: ${pending.map((e) => show(e.argv)).join(", ") || "none"}`;
        const opt = opts === undefined ? "" : ` with options ${JSON.stringify({ ...opts, env: opts.env ? "(set)" : undefined })}`;
        const msg = `unexpected exec call ${show(argv)}${opt}; ${next}`;
        wrong.push(msg);
        throw new Error(msg);
      }
      const [hit] = pending.splice(i, 1);
      return { ...hit!.reply };
    },
    verify() {
      const problems = [...wrong, ...pending.map((e) => `expected exec call never made: ${show(e.argv)}`)];
      wrong.length = 0;
      pending.length = 0;
      if (problems.length > 0) throw new Error(problems.join("\n"));
    },
  };
  made.add(stub);
  return stub;
}

/** Verifies and forgets every stub made since the last call; the preload runs it after each test. */
export function verifyExecStubs(): void {
  const problems: string[] = [];
  for (const stub of [...made]) {
    try {
      stub.verify();
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  made.clear();
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

/** `ps -o ppid=,command= -p <pid>` as `inspectProcess` runs it: the one place tests spell it. */
export const psArgv = (pid: number): string[] => ["ps", "-o", "ppid=,command=", "-p", String(pid)];

/** Expects the ps of `pid`: its row `ppid command`, or, when `row` is undefined, a gone process. */
export function expectPs(stub: ExecStub, pid: number, row: string | undefined): ExecStub {
  return stub.expect(psArgv(pid), row === undefined ? { code: 1 } : { stdout: `${row}\n` });
}

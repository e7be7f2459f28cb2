/**
 * The one Exec stub for in-process tests: the test lists every call the code under test must make
 * (exact argv, optionally the options that matter) with the answer each gets, and the stub fails
 * the test on any other call and on any listed call left unmade.
 *
 * Order: the calls must come in the order listed, since the order is part of what most callers
 * promise (look the agent up, then inspect its process). Where the code walks a directory, whose
 * order the file system chooses, the test lists those calls as one unordered step
 * (`expectAnyOrder`): each must come exactly once, in any order, before any later step.
 *
 * An unexpected call throws at once, and is also remembered, since the code under test may catch
 * the error and carry on; `verify()` reports both. The preload's `afterEach` verifies every stub a
 * test made, so a test cannot forget; a test may call `verify()` itself to check at a midpoint.
 */
import type { Exec, ExecOptions, ExecResult } from "../../src/exec";

export type ExecCall = { argv: string[]; opts?: ExecOptions };
export type ExpectedCall = { argv: string[]; reply?: Partial<ExecResult>; opts?: Partial<ExecOptions> };
type Expected = { argv: string[]; reply: ExecResult; opts?: Partial<ExecOptions> };

export type ExecStub = Exec & {
  /**
   * One more call the code must make, and its answer (exit 0 with empty output unless `reply`
   * says otherwise). When `opts` is given, each option it names must equal the call's.
   */
  expect(argv: string[], reply?: Partial<ExecResult>, opts?: Partial<ExecOptions>): ExecStub;
  /** One more step: these calls, each exactly once, in any order (none of them: no step). */
  expectAnyOrder(calls: ExpectedCall[]): ExecStub;
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

const expected = (c: ExpectedCall): Expected => ({ argv: c.argv, reply: { code: 0, stdout: "", stderr: "", ...c.reply }, opts: c.opts });

export function execStub(): ExecStub {
  /** Steps still to come; each is a set of calls, taken in any order, emptied before the next. */
  const steps: Expected[][] = [];
  const calls: ExecCall[] = [];
  const wrong: string[] = [];
  const stub: ExecStub = {
    calls,
    expect(argv, reply, opts) {
      steps.push([expected({ argv, reply, opts })]);
      return stub;
    },
    expectAnyOrder(list) {
      if (list.length > 0) steps.push(list.map(expected));
      return stub;
    },
    async run(argv, opts) {
      calls.push({ argv, opts });
      const step = steps[0] ?? [];
      const i = step.findIndex((e) => Bun.deepEquals(e.argv, argv, true) && optsMatch(e.opts, opts));
      if (i === -1) {
        const next = step.length === 0 ? "no call" : step.map((e) => show(e.argv)).join(" or ");
        const opt = opts === undefined ? "" : ` with options ${JSON.stringify({ ...opts, env: opts.env ? "(set)" : undefined })}`;
        const msg = `unexpected exec call ${show(argv)}${opt}; expected next ${next}`;
        wrong.push(msg);
        throw new Error(msg);
      }
      const [hit] = step.splice(i, 1);
      if (step.length === 0) steps.shift();
      return { ...hit!.reply };
    },
    verify() {
      const problems = [...wrong, ...steps.flat().map((e) => `expected exec call never made: ${show(e.argv)}`)];
      wrong.length = 0;
      steps.length = 0;
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
export const psArgv = (pid: number): string[] => ["ps", "-ww", "-o", "ppid=,command=", "-p", String(pid)];

/** The ps of `pid` answered with its row `ppid command`, or, when `row` is undefined, as a gone process. */
export function psCall(pid: number, row: string | undefined): ExpectedCall {
  return { argv: psArgv(pid), reply: row === undefined ? { code: 1 } : { stdout: `${row}\n` } };
}

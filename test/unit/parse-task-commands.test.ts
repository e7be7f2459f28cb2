/** The argument halves of the task commands, tested apart from the work (no state, no project). */
import { describe, expect, test } from "bun:test";
import type { ParsedArgs } from "citty";
import { parseDecide } from "../../src/commands/decide";
import { TASK_ID_ARG, taskIdOnly, taskIdThenWords } from "../../src/commands/parse";
import { parsePrompt } from "../../src/commands/prompt";
import { parseStrike } from "../../src/commands/strike";
import { UsageError } from "../../src/errors";
import { findCommand } from "../../src/commands/index";

const ID = "0123456789abcdef";
const args = (_: unknown[], flags: Record<string, unknown> = {}) => ({ _, ...flags }) as unknown as ParsedArgs;

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  throw new Error("expected a usage error");
}

describe("the task-id helpers", () => {
  test("taskIdOnly: one valid id and nothing after it", () => {
    expect(taskIdOnly([ID], "land")).toBe(ID);
    expect(usage(() => taskIdOnly([], "land"))).toBe("missing task id");
    expect(usage(() => taskIdOnly([ID, "x"], "land"))).toBe('unexpected argument "x"');
    expect(usage(() => taskIdOnly(["../etc"], "land"))).toBe('invalid task id "../etc": expected 16 lowercase hex characters, or a unique prefix of at least 4');
    // A prefix is resolved once the project is open (resolveTaskRef); shorter than 4 is refused here.
    expect(taskIdOnly(["0a1b"], "land")).toBe("0a1b");
    expect(usage(() => taskIdOnly(["0a1"], "land"))).toContain('invalid task id "0a1"');
  });

  test("taskIdThenWords: the id, then the words as given", () => {
    expect(taskIdThenWords([ID, "a", "b"], "prompt")).toEqual({ id: ID, rest: ["a", "b"] });
    expect(usage(() => taskIdThenWords([], "prompt"))).toBe("missing task id");
    expect(usage(() => taskIdThenWords(["ABC", "x"], "prompt"))).toContain('invalid task id "ABC"');
  });

  test("every command taking a task id declares the positional", async () => {
    for (const name of ["strike", "land", "decide", "prompt", "redispatch", "wait"]) {
      expect({ name, arg: (await findCommand(name))?.args["task-id"] }).toEqual({ name, arg: TASK_ID_ARG["task-id"] });
    }
  });
});

describe("parseDecide", () => {
  test("an answer is the words after the id", () => {
    expect(parseDecide(args([ID, "use", "the", "v2", "API"]))).toEqual({ id: ID, answer: "use the v2 API", dismiss: false, stdin: false });
    expect(parseDecide(args([ID], { dismiss: true }))).toEqual({ id: ID, answer: "", dismiss: true, stdin: false });
    // --stdin: the answer is read after the checks (MCH-10); never with words or --dismiss.
    expect(parseDecide(args([ID], { stdin: true }))).toEqual({ id: ID, answer: "", dismiss: false, stdin: true });
    expect(usage(() => parseDecide(args([ID, "x"], { stdin: true })))).toBe("--stdin reads the text from standard input: give no text words with it");
    expect(usage(() => parseDecide(args([ID], { stdin: true, dismiss: true })))).toBe("--dismiss takes only the task id, there is no answer to send");
  });

  test("bad input is a usage error, checked in order", () => {
    expect(usage(() => parseDecide(args([])))).toBe("missing task id");
    expect(usage(() => parseDecide(args(["nope", "x"])))).toContain("invalid task id");
    expect(usage(() => parseDecide(args([ID, "x"], { dismiss: true })))).toBe("--dismiss takes only the task id, there is no answer to send");
    expect(usage(() => parseDecide(args([ID, "  "])))).toBe("missing answer");
  });
});

describe("parsePrompt", () => {
  test("the text is the words after the id; empty text is refused", () => {
    expect(parsePrompt(args([ID, "go", "on"]))).toEqual({ id: ID, text: "go on", stdin: false });
    expect(parsePrompt(args([ID], { stdin: true }))).toEqual({ id: ID, text: "", stdin: true });
    expect(usage(() => parsePrompt(args([ID, "x"], { stdin: true })))).toBe("--stdin reads the text from standard input: give no text words with it");
    expect(usage(() => parsePrompt(args([ID])))).toBe("the prompt text is empty");
    expect(usage(() => parsePrompt(args([])))).toBe("missing task id");
  });
});

describe("parseStrike", () => {
  test("the id and the flags", () => {
    expect(parseStrike(args([ID], { force: true }))).toEqual({ id: ID, force: true, discard: false, landed: false });
    expect(parseStrike(args([ID], { landed: true }))).toEqual({ id: ID, force: false, discard: false, landed: true });
    expect(usage(() => parseStrike(args([ID, ID])))).toBe(`unexpected argument "${ID}"`);
  });
});

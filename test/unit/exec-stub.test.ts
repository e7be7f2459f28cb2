// The strict exec stub every in-process test uses (test/fakes/exec.ts): it must fail a test on a
// call it did not expect, a call out of order, and a call it expected but never saw.
import { describe, expect, test } from "bun:test";
import { execStub, verifyExecStubs } from "../fakes/exec";

describe("execStub", () => {
  test("answers the expected calls in order, with the reply and the defaults", async () => {
    const ex = execStub().expect(["git", "status"], { stdout: "clean\n" }).expect(["ps", "-p", "1"], { code: 1 });
    expect(await ex.run(["git", "status"])).toEqual({ code: 0, stdout: "clean\n", stderr: "" });
    expect(await ex.run(["ps", "-p", "1"], { timeoutMs: 5 })).toEqual({ code: 1, stdout: "", stderr: "" });
    expect(ex.calls).toEqual([
      { argv: ["git", "status"], opts: undefined },
      { argv: ["ps", "-p", "1"], opts: { timeoutMs: 5 } },
    ]);
    ex.verify();
  });

  test("a call that is not the next one throws, and verify reports it even when it was caught", async () => {
    const ex = execStub().expect(["a"]).expect(["b"]);
    await expect(ex.run(["b"])).rejects.toThrow('unexpected exec call ["b"]; expected next ["a"]');
    await ex.run(["a"]);
    await ex.run(["b"]);
    expect(() => ex.verify()).toThrow('unexpected exec call ["b"]; expected next ["a"]');
  });

  test("an argv that differs in one word, or a call past the script, is unexpected", async () => {
    const ex = execStub().expect(["ps", "-o", "ppid=,command=", "-p", "7"]);
    await ex.run(["ps", "-o", "ppid=,command=", "7"]).catch(() => undefined);
    await ex.run(["ps", "-o", "ppid=,command=", "-p", "7"]);
    await ex.run(["ps"]).catch(() => undefined);
    expect(() => ex.verify()).toThrow('unexpected exec call ["ps"]; expected next no call');
  });

  test("a listed call never made fails verify", async () => {
    const ex = execStub().expect(["a"]).expect(["b"]);
    await ex.run(["a"]);
    expect(() => ex.verify()).toThrow('expected exec call never made: ["b"]');
  });

  test("options named by the expectation must match; others are free", async () => {
    const ex = execStub().expect(["herdr", "agent", "list"], {}, { timeoutMs: 10 });
    await ex.run(["herdr", "agent", "list"], { timeoutMs: 11 }).catch(() => undefined);
    await ex.run(["herdr", "agent", "list"], { timeoutMs: 10, env: { A: "1" } });
    expect(() => ex.verify()).toThrow('unexpected exec call ["herdr","agent","list"] with options {"timeoutMs":11}');
  });

  test("an unordered step takes its calls in any order, each once, all before the next step", async () => {
    const ex = execStub()
      .expect(["first"])
      .expectAnyOrder([{ argv: ["a"] }, { argv: ["b"], reply: { stdout: "B" } }])
      .expect(["last"]);
    await ex.run(["first"]);
    expect((await ex.run(["b"])).stdout).toBe("B");
    await ex.run(["a"]);
    await ex.run(["last"]);
    ex.verify();
    ex.expectAnyOrder([{ argv: ["a"] }, { argv: ["b"] }]).expect(["last"]);
    await ex.run(["a"]);
    await ex.run(["a"]).catch(() => undefined);
    await ex.run(["last"]).catch(() => undefined);
    expect(() => ex.verify()).toThrow('unexpected exec call ["a"]; expected next ["b"]\nunexpected exec call ["last"]; expected next ["b"]\nexpected exec call never made: ["b"]');
  });

  test("the after-each check fails for any stub the test made and left unfinished", async () => {
    execStub().expect(["left", "over"]);
    const wrong = execStub();
    await wrong.run(["nobody", "asked"]).catch(() => undefined);
    expect(() => verifyExecStubs()).toThrow('expected exec call never made: ["left","over"]\nunexpected exec call ["nobody","asked"]; expected next no call');
    // Verified once, they are forgotten: the preload's own after-each passes.
    verifyExecStubs();
  });
});

// The process seam: exit codes, output, stdin, timeouts, a missing executable.
import { expect, test } from "bun:test";
import { EXEC_CANNOT_RUN, EXEC_NOT_FOUND, realExec } from "../../src/exec";

test("argv in, code and both streams out; stdin passed as is", async () => {
  const r = await realExec.run(["sh", "-c", 'cat; echo "$1" >&2; exit 3', "sh", "it's $(not) expanded"], { stdin: "in\n" });
  expect(r).toEqual({ code: 3, stdout: "in\n", stderr: "it's $(not) expanded\n" });
});

test("a child that exits without reading a large stdin is not an error", async () => {
  const r = await realExec.run(["sh", "-c", "exit 7"], { stdin: "x".repeat(4 << 20) });
  expect(r.code).toBe(7);
});

test("a missing executable is 127, a timeout 124", async () => {
  expect((await realExec.run(["/nonexistent/vx-no-such-tool"])).code).toBe(EXEC_NOT_FOUND);
  expect((await realExec.run(["sleep", "5"], { timeoutMs: 50 })).code).toBe(124);
});

test("an executable that exists but cannot be started is 126, saying why (not 'not found')", async () => {
  const r = await realExec.run(["/bin/echo", "x".repeat(3_000_000)]);
  expect(r.code).toBe(EXEC_CANNOT_RUN);
  expect(r.stderr).toContain("E2BIG");
});

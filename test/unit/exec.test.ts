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

test("tailBytes keeps each stream's last bytes, read as they come; a character cut at the start is dropped", async () => {
  // 3 MiB of output, then a marker: only the end is held.
  const big = await realExec.run(["sh", "-c", "head -c 3145728 /dev/zero | tr '\\0' a; printf END; head -c 200000 /dev/zero | tr '\\0' b >&2; printf ERR >&2"], { tailBytes: 1000 });
  expect(big.code).toBe(0);
  expect(big.stdout.length).toBe(1000);
  expect(big.stdout.endsWith("aaaEND")).toBe(true);
  expect(big.stderr.length).toBe(1000);
  expect(big.stderr.endsWith("bbbERR")).toBe(true);
  // Two-byte characters cut in half at the start: the half is dropped, nothing garbled.
  const utf = await realExec.run(["sh", "-c", "i=0; while [ $i -lt 100 ]; do printf 'é'; i=$((i+1)); done"], { tailBytes: 7 });
  expect(utf.stdout).toBe("ééé");
  // Shorter than the bound: all of it.
  expect((await realExec.run(["printf", "short"], { tailBytes: 1000 })).stdout).toBe("short");
});

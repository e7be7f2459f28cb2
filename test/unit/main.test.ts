// main's one place for errors: an unexpected failure is one line with a way to learn more.
import { expect, test } from "bun:test";
import { report } from "../../src/main";
import { testDeps } from "../deps";

test("an unexpected error prints one line and the VX_DEBUG hint; with VX_DEBUG, the stack", async () => {
  const d = testDeps({ cwd: "/", env: {} });
  expect(await report(new TypeError("boom"), d)).toBe(1);
  expect(d.text().stderr).toBe("vx: unexpected error: boom (run it again with VX_DEBUG=1 to see where)\n");
  const dbg = testDeps({ cwd: "/", env: { VX_DEBUG: "1" } });
  await report(new TypeError("boom"), dbg);
  expect(dbg.text().stderr).toStartWith("vx: unexpected error: boom\nTypeError: boom\n");
});

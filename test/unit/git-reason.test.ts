// Why git failed, in one line (issue 15, item 20): its error line and the paths it lists, not the
// closing `Aborting`.
import { describe, expect, test } from "bun:test";
import { reasonLine } from "../../src/camps/git";

describe("reasonLine", () => {
  test("the error line with the paths listed under it; more than five are counted", () => {
    const files = Array.from({ length: 7 }, (_, i) => `\tsrc/f${i}.ts`);
    const stderr = [
      "Updating 1a2b..3c4d",
      "error: Your local changes to the following files would be overwritten by merge:",
      ...files,
      "Please commit your changes or stash them before you merge.",
      "Aborting",
      "",
    ].join("\n");
    expect(reasonLine(stderr)).toBe("error: Your local changes to the following files would be overwritten by merge: src/f0.ts, src/f1.ts, src/f2.ts, src/f3.ts, src/f4.ts and 2 more");
  });

  test("a fatal line alone; nothing when git gave no reason line", () => {
    expect(reasonLine("fatal: Not possible to fast-forward, aborting.\n")).toBe("fatal: Not possible to fast-forward, aborting.");
    expect(reasonLine("Aborting\n")).toBe("");
  });
});

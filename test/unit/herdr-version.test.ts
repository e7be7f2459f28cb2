// HRD-01: which herdr versions vx supports, and doctor's word on what each was proven against.
import { expect, test } from "bun:test";
import { HERDR_PROVEN, herdrVersionNote, parseHerdrVersion } from "../../src/backends/herdr/version";
import { REAL_HERDR_VERSION } from "../herdr-real";

const note = (line: string) => {
  const v = parseHerdrVersion(line);
  if (!v) throw new Error(`not a version line: ${line}`);
  return { supported: v.supported, note: herdrVersionNote(v) };
};

test("the proven version is the one the suites run", () => {
  expect(HERDR_PROVEN).toBe(REAL_HERDR_VERSION);
  expect(note("herdr 0.8.2")).toEqual({ supported: true, note: "0.8.2 (the version vx's tests run)" });
});

test("a later 0.8 and any 0.9 are supported, 0.9 only as read", () => {
  expect(note("herdr 0.8.5")).toEqual({ supported: true, note: "0.8.5 (vx's tests run the real 0.8.2)" });
  expect(note("herdr 0.9.1-preview.3")).toEqual({ supported: true, note: "0.9.1 (supported as read from herdr's source; vx's tests run the real 0.8.2)" });
});

test("outside the range: a warning that says what was proven", () => {
  for (const line of ["herdr 0.8.1", "herdr 0.10.0", "herdr 1.0.0"]) {
    const n = note(line);
    expect(n.supported).toBe(false);
    expect(n.note).toContain("is outside 0.8.2-0.9.x - vx is tested against the real herdr 0.8.2");
  }
  expect(parseHerdrVersion("herdr-core 1.2.0")).toBeUndefined();
});

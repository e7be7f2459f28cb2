// The test sandbox's PATH is built, never inherited: a vx or herdr on the runner's PATH (say in
// ~/.local/bin, as the README suggests) must not reach what a test runs.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeHerdr } from "../fakes/herdr-control";
import { sandbox, writeExecutable } from "../helpers";

const savedPath = process.env.PATH;
let planted: string | undefined;
afterEach(() => {
  process.env.PATH = savedPath;
  if (planted) rmSync(planted, { recursive: true, force: true });
  planted = undefined;
});

/** A directory with a stray vx and herdr, put first on the runner's PATH. */
function plant(): string {
  planted = mkdtempSync(join(tmpdir(), "vx-planted-"));
  const bin = join(planted, "bin");
  mkdirSync(bin);
  for (const exe of ["vx", "herdr"]) writeExecutable(join(bin, exe), "#!/bin/sh\necho stray\n");
  process.env.PATH = `${bin}:${savedPath ?? ""}`;
  return bin;
}

describe("sandbox PATH", () => {
  test("leaves out every directory of the runner's PATH, keeps the real tools", () => {
    const bin = plant();
    using s = sandbox();
    const dirs = s.env.PATH!.split(":");
    expect(dirs[0]).toBe(s.bin);
    expect(dirs).not.toContain(bin);
    for (const d of (savedPath ?? "").split(":").filter(Boolean)) expect(dirs).not.toContain(d);
    expect(Bun.which("vx", { PATH: s.env.PATH })).toBeNull();
    expect(Bun.which("herdr", { PATH: s.env.PATH })).toBeNull();
    for (const tool of ["git", "bun", "sh", "ps", "env"]) expect(Bun.which(tool, { PATH: s.env.PATH })).not.toBeNull();
  });

  test("the fake herdr's environment finds the fake, not the stray one", () => {
    plant();
    using s = sandbox();
    const env = installFakeHerdr(s.bin);
    expect(Bun.which("herdr", { PATH: env.PATH })).toBe(join(s.bin, "herdr"));
    expect(Bun.which("vx", { PATH: env.PATH })).toBeNull();
  });
});

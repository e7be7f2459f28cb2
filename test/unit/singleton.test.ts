// The sentinel singleton (SEN-01, SEN-23): a successor that meets the lock held while no
// sentinel.json names its holder (one retiring has removed it; one starting has not written it yet)
// looks again for a moment instead of refusing at once.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deps } from "../../src/deps";
import { buildOf } from "../../src/sentinel/build";
import { acquireSingleton } from "../../src/sentinel/singleton";
import { rootPaths } from "../../src/state/paths";
import { realClock } from "../../src/time";

const HOLDER = join(import.meta.dir, "..", "fixtures", "hold-lock.ts");

describe("acquireSingleton", () => {
  test("a lock held with no sentinel.json, let go a moment later: the successor takes over", async () => {
    const root = mkdtempSync(join(tmpdir(), "vx-singleton-"));
    const paths = rootPaths(root);
    const holder = Bun.spawn(["bun", HOLDER, paths.sentinelLock], { stdout: "pipe", stderr: "inherit" });
    try {
      const reader = holder.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("locked");
      const deps = { env: {}, pid: process.pid, clock: realClock } as unknown as Deps;
      const build = buildOf(process.execPath, "0.0.0-test")!;
      // Its first try runs before acquireSingleton returns: the lock is met held, with no sentinel.json.
      const taking = acquireSingleton(paths, deps, build);
      holder.kill("SIGKILL");
      await holder.exited;
      const held = await taking;
      expect(held).toBeDefined();
      held!.release();
    } finally {
      holder.kill("SIGKILL");
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// consola is for people at a terminal (issue 19 item 4): the Stop hook's drain, the sentinel and
// every plain run never load it. Each run is the source entry under Bun with a preload that lists,
// at exit, every module the process loaded (require.cache); the compiled binary splits the same
// dynamic imports into chunks it loads only when reached.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeHerdr } from "../fakes/herdr-control";
import { REPO, sandbox, waitFor } from "../helpers";

const PRELOAD = join(REPO, "test/fixtures/loaded-modules.ts");
const CLI = join(REPO, "src/cli.ts");

function spawnListing(args: string[], cwd: string, env: Record<string, string>, out: string) {
  return Bun.spawn([process.execPath, "--preload", PRELOAD, ...args], {
    cwd,
    env: { ...env, LOADED_MODULES_OUT: out },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}

const modulesOf = (pkg: string) => (out: string) =>
  readFileSync(out, "utf8")
    .split("\n")
    .filter((m) => m.includes(`/node_modules/${pkg}/`));
const consolaModules = modulesOf("consola");
// The Markdown renderer builds its rules when loaded: only a Markdown artifact shown loads it.
const markedModules = modulesOf("marked");

describe("consola is loaded only where people read", () => {
  test("the listing sees consola when terminal.ts's colours are drawn (the check can fail)", async () => {
    using s = sandbox({ git: false });
    const out = join(s.home, "modules.txt");
    const code = `const t = await import(${JSON.stringify(join(REPO, "src/ui/terminal.ts"))}); await t.colourReport("[ok] x\\n");`;
    const p = spawnListing(["-e", code], s.home, s.env, out);
    expect(await p.exited).toBe(0);
    expect(consolaModules(out).length).toBeGreaterThan(0);
  });

  test("`vx sentinel drain` and a plain `vx doctor` and `vx init --yes` do not load it, nor the Markdown renderer", async () => {
    using s = sandbox();
    for (const argv of [["init", "--yes"], ["sentinel", "drain"], ["doctor"]]) {
      const out = join(s.home, `modules-${argv[0]}.txt`);
      const p = spawnListing([CLI, ...argv], s.project, s.env, out);
      await p.exited;
      expect(existsSync(out)).toBe(true);
      expect(readFileSync(out, "utf8")).toContain("/src/cli.ts");
      expect({ argv, consola: consolaModules(out), marked: markedModules(out) }).toEqual({ argv, consola: [], marked: [] });
    }
  });

  test("the sentinel never loads it while it polls", async () => {
    using s = sandbox();
    Object.assign(s.env, installFakeHerdr(s.bin), { VX_TIME_SCALE: "0.01" });
    const out = join(s.home, "modules-sentinel.txt");
    const root = join(s.home, ".vexillum");
    const p = spawnListing([CLI, "sentinel"], s.home, s.env, out);
    try {
      await waitFor(() => existsSync(join(root, "sentinel.json")), 30_000, "sentinel.json");
    } finally {
      p.kill("SIGTERM");
    }
    await p.exited;
    expect(readFileSync(out, "utf8")).toContain("/src/sentinel/loop.ts");
    expect(consolaModules(out)).toEqual([]);
  });
});

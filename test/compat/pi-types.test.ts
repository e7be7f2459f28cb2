// The Pi wake extension's own minimal types stand in for Pi's: swapped for the installed Pi's real
// ExtensionAPI and ExtensionContext, the template must still type-check under strict, so every
// event name and payload field it uses is one Pi 0.73.1 declares.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PI_EXTENSION } from "../../src/harnesses/pi-extension";
import { REPO } from "../helpers";
import { harness } from "./harnesses";

test("the generated Pi extension type-checks against Pi's real extension types", async () => {
  const pi = await harness("pi");
  const modules = join(dirname(pi), "..");
  const dir = mkdtempSync(join(tmpdir(), "vx-pi-types-"));
  try {
    const start = PI_EXTENSION.indexOf("type Ctx = {");
    const end = PI_EXTENSION.indexOf("};\n", PI_EXTENSION.indexOf("type Pi = {")) + 3;
    expect(start).toBeGreaterThan(0);
    const real = 'import type { ExtensionAPI as Pi, ExtensionContext as Ctx } from "@mariozechner/pi-coding-agent";\n';
    writeFileSync(join(dir, "ext.ts"), PI_EXTENSION.slice(0, start) + real + PI_EXTENSION.slice(end));
    mkdirSync(join(dir, "node_modules", "@mariozechner"), { recursive: true });
    symlinkSync(join(modules, "@mariozechner", "pi-coding-agent"), join(dir, "node_modules", "@mariozechner", "pi-coding-agent"));
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module: "esnext",
      moduleResolution: "bundler",
      target: "es2022",
      skipLibCheck: true,
      types: ["node"],
      typeRoots: [join(modules, "@types")],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["ext.ts"] }));
    const tsc = Bun.spawnSync([join(REPO, "node_modules", ".bin", "tsc"), "-p", dir], { stdout: "pipe", stderr: "pipe" });
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

#!/usr/bin/env bun
/**
 * Builds the one self-contained `dist/vx` for this machine (or `--target bun-<os>-<arch>` for
 * another), with the version embedded and runtime autoload of .env and bunfig turned off so the
 * binary never picks up files from whatever directory it runs in. `--release` marks the build as
 * a release (the only kind `vx upgrade` replaces); `--version` overrides package.json's version.
 */
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { LIKE_VX, LIKE_VX_COMPILE } from "./build-flags";

const { values } = parseArgs({
  options: {
    target: { type: "string" },
    outfile: { type: "string", default: "dist/vx" },
    version: { type: "string", default: pkg.version },
    release: { type: "boolean", default: false },
  },
});

if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(values.version)) {
  console.error(`build: --version must look like 1.2.3 or 1.2.3-rc.1 (got "${values.version}")`);
  process.exit(1);
}

const result = await Bun.build({
  entrypoints: ["./src/cli.ts"],
  ...LIKE_VX,
  minify: true,
  splitting: true,
  sourcemap: "none",
  define: {
    VX_VERSION: JSON.stringify(values.version),
    VX_BUILD_KIND: JSON.stringify(values.release ? "release" : "source"),
  },
  compile: {
    outfile: values.outfile,
    ...LIKE_VX_COMPILE,
    ...(values.target ? { target: values.target as "bun-linux-x64" } : {}),
  },
});

if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.error(`built ${values.outfile} (vx ${values.version}${values.release ? ", release" : ""})`);

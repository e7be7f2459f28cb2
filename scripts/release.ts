#!/usr/bin/env bun
/**
 * `bun run release`: the GitHub Releases assets of one version in `dist/release/` (or `--out`):
 * `vx-<os>-<arch>.tar.gz` per platform, `checksums.txt`, `install.sh`, `vx.rb` and `version.txt`.
 * `--targets host` builds only this machine's platform; `--version` overrides package.json's
 * (tests release a bumped version). The installer and the formula point at `VX_RELEASES_URL`
 * when set, else the project's releases page (src/release-info.ts).
 *
 * Other platforms are cross-compiled, which needs Bun to download their runtimes: a target that
 * cannot be built is named with the reason, the others are still written, and the exit code is 1.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { ARCHES, CHECKSUMS_ASSET, FORMULA_ASSET, INSTALLER_ASSET, OSES, type Platform, VERSION_ASSET, archiveName, assetUrl, hostPlatform, releasesBase } from "../src/release-info";
import { archiveOne, checksumsText, formulaText, installerText, sha256, targetOf } from "./release-files";

const REPO = resolve(import.meta.dir, "..");
const DESCRIPTION = "Run many AI coding agents in parallel, woken by a sentinel when one finishes";

const { values } = parseArgs({
  options: {
    version: { type: "string", default: pkg.version },
    out: { type: "string", default: join(REPO, "dist", "release") },
    targets: { type: "string", default: "all" },
  },
});

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}

function platforms(spec: string): Platform[] {
  const all = OSES.flatMap((os) => ARCHES.map((arch) => ({ os, arch })));
  const names = all.map((p) => `${p.os}-${p.arch}`).join(", ");
  if (spec === "all") return all;
  const out: Platform[] = [];
  for (const name of spec.split(",").map((n) => n.trim())) {
    let p: Platform | undefined;
    if (name === "host") {
      p = hostPlatform();
      if (!p) fail(`this machine (${process.platform}/${process.arch}) is not a release platform; name targets from ${names}`);
    } else {
      p = all.find((x) => `${x.os}-${x.arch}` === name);
      if (!p) fail(`unknown target "${name}", expected all, or a comma-separated list of host, ${names}`);
    }
    if (!out.some((x) => x.os === p.os && x.arch === p.arch)) out.push(p);
  }
  return out;
}

const version = values.version.replace(/^v/, "");
const out = resolve(values.out);
const base = releasesBase(process.env);
const wanted = platforms(values.targets);
const work = join(out, ".build");

mkdirSync(out, { recursive: true });
// Only this script's own files are removed, so a stale archive never sits beside new checksums.
for (const p of OSES.flatMap((os) => ARCHES.map((arch) => archiveName({ os, arch })))) rmSync(join(out, p), { force: true });
for (const f of [CHECKSUMS_ASSET, FORMULA_ASSET, INSTALLER_ASSET, VERSION_ASSET]) rmSync(join(out, f), { force: true });
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const mtime = Number(process.env.SOURCE_DATE_EPOCH) || Date.now() / 1000;
const sums: Record<string, string> = {};
const built: Array<{ platform: Platform; url: string; sha256: string }> = [];
const missing: string[] = [];

for (const platform of wanted) {
  const name = `${platform.os}-${platform.arch}`;
  const binary = join(work, name, "vx");
  const res = Bun.spawnSync([process.execPath, join(REPO, "scripts", "build.ts"), "--target", targetOf(platform), "--outfile", binary, "--version", version, "--release"], {
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (res.exitCode !== 0) {
    const lines = `${res.stderr}${res.stdout}`
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const why = lines.find((l) => l.startsWith("error:"))?.replace(/^error:\s*/, "") ?? lines.at(-1) ?? `exit ${res.exitCode}`;
    // Cross-compiling fetches Bun's runtime for that platform (then cached), so it needs the network once.
    const hint = /download/i.test(why) ? " - cross-compiling downloads Bun's runtime for that platform once; check the network" : "";
    console.error(`release: could not build ${name} (${targetOf(platform)}): ${why}${hint}`);
    missing.push(name);
    continue;
  }
  const asset = archiveName(platform);
  const archive = await archiveOne("vx", await Bun.file(binary).bytes(), mtime);
  writeFileSync(join(out, asset), archive);
  sums[asset] = sha256(archive);
  built.push({ platform, url: assetUrl(base, version, asset), sha256: sums[asset] });
  console.error(`release: ${asset} (${(archive.length / 1e6).toFixed(1)} MB)`);
}
rmSync(work, { recursive: true, force: true });
if (built.length === 0) fail("no target could be built, so nothing was released");

const extras: Record<string, string> = {
  [INSTALLER_ASSET]: installerText(readFileSync(join(REPO, "scripts", "install-release.sh"), "utf8"), base),
  [FORMULA_ASSET]: formulaText({ version, base, description: DESCRIPTION, archives: built }),
  [VERSION_ASSET]: `${version}\n`,
};
for (const [name, text] of Object.entries(extras)) {
  writeFileSync(join(out, name), text, { mode: name === INSTALLER_ASSET ? 0o755 : 0o644 });
  sums[name] = sha256(text);
}
writeFileSync(join(out, CHECKSUMS_ASSET), checksumsText(sums));

console.error(`release: vx ${version} in ${out} for ${built.map((b) => `${b.platform.os}-${b.platform.arch}`).join(", ")} (assets for ${base})`);
if (missing.length) {
  console.error(`release: incomplete, ${missing.join(", ")} could not be built (see above); the formula and checksums cover only the rest`);
  process.exit(1);
}

// Where releases live, in one place for the release script, installer, Homebrew formula and `vx upgrade`. `VX_RELEASES_URL`
// names another base with GitHub Releases' layout (a mirror, or a test's server).
import type { Env } from "./state/paths";

/** A placeholder until the repository has a published home: change it here only. */
export const RELEASES_URL = "https://github.com/vexillum-dev/vx/releases";

export const HOMEBREW_TAP = "vexillum-dev/tap";

export const OSES = ["linux", "darwin"] as const;
export const ARCHES = ["x64", "arm64"] as const;
type ReleaseOs = (typeof OSES)[number];
type ReleaseArch = (typeof ARCHES)[number];
export type Platform = { os: ReleaseOs; arch: ReleaseArch };

export const CHECKSUMS_ASSET = "checksums.txt";
export const INSTALLER_ASSET = "install.sh";
export const FORMULA_ASSET = "vx.rb";
/** One line, the release's version: how `vx upgrade` learns what `latest` is without an API. */
export const VERSION_ASSET = "version.txt";

/** The installer's receipt: beside a binary named `vx`, it tells `vx upgrade` the installer put that binary there. */
export const RECEIPT_NAME = ".vx-install";

/** Cap on a release archive's `vx`, checked before writing (a few MB of gzip can unpack to gigabytes); 4x the largest binary (112 MB). */
export const MAX_BINARY_BYTES = 448 * 1024 * 1024;

export function archiveName(p: Platform): string {
  return `vx-${p.os}-${p.arch}.tar.gz`;
}

/** `VX_RELEASES_URL`, else the base the install recorded (its mirror), else `RELEASES_URL`; no trailing slash. */
export function releasesBase(env: Env, recorded?: string): string {
  return (env.VX_RELEASES_URL || recorded || RELEASES_URL).replace(/\/+$/, "");
}

export function assetUrl(base: string, version: string | "latest", asset: string): string {
  return version === "latest" ? `${base}/latest/download/${asset}` : `${base}/download/v${version}/${asset}`;
}

/** The platform this process runs on, or undefined where vx is not released (BLD-07). */
export function hostPlatform(platform: string = process.platform, arch: string = process.arch): Platform | undefined {
  const os = platform === "linux" || platform === "darwin" ? platform : undefined;
  const a = arch === "x64" || arch === "arm64" ? arch : undefined;
  return os && a ? { os, arch: a } : undefined;
}

export function reinstallHint(base: string): string {
  return `reinstall with: curl -fsSL ${assetUrl(base, "latest", INSTALLER_ASSET)} | sh (or: brew install ${HOMEBREW_TAP}/vx)`;
}

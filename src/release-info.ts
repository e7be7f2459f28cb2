/**
 * Where vx releases live and what they hold, in one place for the release script, the installer
 * (which gets the base written in at release time), the Homebrew formula and `vx upgrade`.
 * Releases are GitHub Releases assets: `<base>/download/v<version>/<asset>` and
 * `<base>/latest/download/<asset>`. `VX_RELEASES_URL` names another base with the same layout
 * (a mirror, or a test's local server).
 */
import type { Env } from "./state/paths";

/**
 * The project's releases page. The repository has no published home yet, so this is a
 * placeholder: change it here (and only here) when it does.
 */
export const RELEASES_URL = "https://github.com/vexillum-dev/vx/releases";

/** The Homebrew tap that carries the generated `vx.rb` (`brew install <tap>/vx`). */
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

/**
 * The installer's receipt, written next to the binary it installed. Its presence (with a binary
 * named `vx` beside it) is what tells `vx upgrade` that the installer script put this vx there.
 */
export const RECEIPT_NAME = ".vx-install";

/**
 * The most bytes the `vx` inside a release archive may have; the installer (written in at release
 * time) and `vx upgrade` refuse a bigger one before writing it out. A gzip archive of a few MB can
 * unpack to gigabytes, so the size the archive claims is not trusted. 448 MiB is 4x today's
 * largest release binary (linux-x64, 112 MB): room to grow without ever filling a disk.
 */
export const MAX_BINARY_BYTES = 448 * 1024 * 1024;

export function archiveName(p: Platform): string {
  return `vx-${p.os}-${p.arch}.tar.gz`;
}

/**
 * The base every release URL starts with, without a trailing slash: `VX_RELEASES_URL`, else the
 * base the install recorded (a mirror it came from), else the one named in `RELEASES_URL`.
 */
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

/** The lines that reinstall vx, for refusals. */
export function reinstallHint(base: string): string {
  return `reinstall with: curl -fsSL ${assetUrl(base, "latest", INSTALLER_ASSET)} | sh (or: brew install ${HOMEBREW_TAP}/vx)`;
}

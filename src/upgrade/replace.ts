/**
 * The installer-script install's binary step (CMD-UPGRADE-01): download the release archive for
 * this platform, verify its SHA-256 against the release's checksums.txt, take `vx` out of it,
 * check it runs here and is the version asked for, then rename it over the old executable with
 * the old file's mode. Until that rename nothing on disk has changed; the rename is atomic, so
 * a running sentinel sees a whole new file and retires (SEN-22).
 */
import { closeSync, fchmodSync, fsyncSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { VxError, errorMessage } from "../errors";
import type { Exec } from "../exec";
import { CHECKSUMS_ASSET, type Platform, archiveName, assetUrl } from "../release-info";
import { createTemp, syncDir, writeAtomic } from "../state/files";
import { GUARDS } from "../time";
import type { Output } from "../deps";
import { download, downloadText } from "./download";
import type { Receipt } from "./install-kind";

const UNCHANGED = "nothing was changed";

/** `<hex>  <name>` lines (`*<name>` for binary mode too), as sha256sum writes them. */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trim());
    if (m) sums.set(m[2] as string, (m[1] as string).toLowerCase());
  }
  return sums;
}

function sha256(data: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

async function vxFromArchive(archive: Uint8Array, asset: string): Promise<Uint8Array> {
  let file: File | undefined;
  try {
    file = (await new Bun.Archive(archive).files()).get("vx");
  } catch (err) {
    throw new VxError(`${asset} is not a readable archive (${errorMessage(err)}) - ${UNCHANGED}`);
  }
  if (!file) throw new VxError(`${asset} holds no vx binary - ${UNCHANGED}`);
  return file.bytes();
}

/** Writes `bytes` to a new temp file beside `target`, with `target`'s mode; returns its path. */
function stage(target: string, bytes: Uint8Array): string {
  const cannot = (err: unknown) =>
    new VxError(`cannot write beside ${target} (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}) - ${UNCHANGED}; reinstall vx somewhere you can write`);
  let temp: { tmp: string; fd: number };
  let mode: number;
  try {
    mode = statSync(target).mode & 0o7777;
    temp = createTemp(target, 0o700);
  } catch (err) {
    throw cannot(err);
  }
  const { tmp, fd } = temp;
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fchmodSync(fd, mode); // the umask never gets a say: the new file keeps the old one's mode
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw cannot(err);
  }
  closeSync(fd);
  return tmp;
}

export type ReplaceOptions = {
  base: string;
  version: string;
  platform: Platform;
  /** The installed executable, symlinks resolved. */
  target: string;
  receipt: string;
  exec: Exec;
  env: Record<string, string | undefined>;
  /** A terminal to draw download progress on, or undefined. */
  progress?: Output;
};

export async function replaceFromRelease(o: ReplaceOptions): Promise<void> {
  const asset = archiveName(o.platform);
  const sums = parseChecksums(await downloadText(assetUrl(o.base, o.version, CHECKSUMS_ASSET), CHECKSUMS_ASSET));
  const expected = sums.get(asset);
  if (!expected) throw new VxError(`the v${o.version} release's ${CHECKSUMS_ASSET} lists no ${asset} - ${UNCHANGED}`);
  const archive = await download(assetUrl(o.base, o.version, asset), { label: asset, progress: o.progress });
  const actual = sha256(archive);
  if (actual !== expected) {
    throw new VxError(`checksum mismatch for ${asset} (expected ${expected}, got ${actual}): the download is damaged or not the release's - ${UNCHANGED}`);
  }
  const tmp = stage(o.target, await vxFromArchive(archive, asset));
  try {
    const run = await o.exec.run([tmp, "--version"], { env: o.env, timeoutMs: GUARDS.toolProbe });
    const said = run.stdout.trim();
    if (run.code !== 0 || said !== `vx ${o.version}`) {
      const why = run.code !== 0 ? `it does not run here: ${(run.stderr.trim().split("\n")[0] ?? "") || `exit ${run.code}`}` : `it says "${said}"`;
      throw new VxError(`the downloaded vx is not a working vx ${o.version} (${why}) - ${UNCHANGED}`);
    }
    renameSync(tmp, o.target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dirname(o.target));
  const receipt: Receipt = { installer: "install.sh", version: o.version, os: o.platform.os, arch: o.platform.arch };
  writeAtomic(o.receipt, `${JSON.stringify(receipt)}\n`, 0o644, 0o755);
}

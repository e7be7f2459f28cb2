// The installer install's binary step (CMD-UPGRADE-01): download, verify, extract `vx`, check it runs as the version asked for,
// then rename it over the old executable. Nothing on disk changes before that atomic rename, so a running sentinel sees a whole
// new file and retires (SEN-22).
import { closeSync, fchmodSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Output } from "../deps";
import { VxError, errorMessage } from "../errors";
import type { Exec } from "../exec";
import { CHECKSUMS_ASSET, type Platform, archiveName, assetUrl } from "../release-info";
import { createTemp, syncDir, writeAtomic } from "../state/files";
import { GUARDS } from "../time";
import { checksumFor } from "./checksums";
import { downloadText, downloadTo } from "./download";
import type { Receipt } from "./install-kind";
import { extractVx } from "./untar";

const UNCHANGED = "nothing was changed";

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? errorMessage(err);

/** Streams the archive into `path` while hashing it; returns its SHA-256. */
async function downloadArchive(url: string, path: string, label: string, progress: Output | undefined): Promise<string> {
  const fd = openSync(path, "wx", 0o600);
  const hash = new Bun.CryptoHasher("sha256");
  try {
    await downloadTo(url, { label, progress }, (chunk) => {
      hash.update(chunk);
      try {
        for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
      } catch (err) {
        throw new VxError(`cannot save the download of ${label} in ${dirname(path)} (${codeOf(err)}) - ${UNCHANGED}; free some space or set TMPDIR`);
      }
    });
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** Streams `vx` into a new temp file (unpredictable name, opened exclusively) beside `target`, with its mode; returns its path. */
async function stage(target: string, archive: string, asset: string): Promise<string> {
  const cannot = (err: unknown) => new VxError(`cannot write beside ${target} (${codeOf(err)}) - ${UNCHANGED}; reinstall vx somewhere you can write`);
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
    await extractVx(archive, fd, asset, UNCHANGED);
    fchmodSync(fd, mode); // the umask never gets a say: the new file keeps the old one's mode
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err instanceof VxError ? err : cannot(err);
  }
  closeSync(fd);
  return tmp;
}

type ReplaceOptions = {
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
  const listed = checksumFor(await downloadText(assetUrl(o.base, o.version, CHECKSUMS_ASSET), CHECKSUMS_ASSET), asset);
  if ("problem" in listed) {
    const what = listed.problem === "missing" ? `lists no ${asset}` : `lists ${asset} more than once`;
    throw new VxError(`the v${o.version} release's ${CHECKSUMS_ASSET} ${what} - ${UNCHANGED}`);
  }
  let work: string;
  try {
    work = mkdtempSync(join(tmpdir(), "vx-upgrade-"));
  } catch (err) {
    throw new VxError(`cannot make a temp dir in ${tmpdir()} for the download (${codeOf(err)}) - ${UNCHANGED}; set TMPDIR to a directory you can write`);
  }
  let tmp: string;
  try {
    const archive = join(work, asset);
    const actual = await downloadArchive(assetUrl(o.base, o.version, asset), archive, asset, o.progress);
    if (actual !== listed.hex) {
      throw new VxError(`checksum mismatch for ${asset} (expected ${listed.hex}, got ${actual}): the download is damaged or not the release's - ${UNCHANGED}`);
    }
    tmp = await stage(o.target, archive, asset);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
  const receipt: Receipt = { installer: "install.sh", version: o.version, os: o.platform.os, arch: o.platform.arch, releases: o.base };
  writeAtomic(o.receipt, `${JSON.stringify(receipt)}\n`, 0o644, 0o755);
}

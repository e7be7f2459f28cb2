// Downloads for `vx upgrade`: streamed, failing with one line naming the URL and what went wrong; progress only on a terminal.
import type { Output } from "../deps";
import { VxError, errorMessage } from "../errors";
import { GUARDS } from "../time";

/** Nothing was changed when one of these is thrown: the message says so. */
class DownloadError extends VxError {
  constructor(what: string) {
    super(`${what} - nothing was changed; check the network and the release, then run 'vx upgrade' again`);
    this.name = "DownloadError";
  }
}

function reason(err: unknown): string {
  if (err instanceof Error && err.name === "AbortError") return `nothing received for ${GUARDS.downloadStall / 1000} s`;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && code ? code : errorMessage(err);
}

const MB = 1e6;

/** `\r<label>  12.3 / 52.1 MB  24%`, redrawn once per percent (per MB when the size is unknown). */
export function progressMeter(out: Output, label: string, total: number | undefined) {
  let shown = -1;
  let drawn = false;
  return {
    update(got: number) {
      const step = total ? Math.floor((got * 100) / total) : Math.floor(got / MB);
      if (step === shown) return;
      shown = step;
      drawn = true;
      const figure = total ? `${(got / MB).toFixed(1)} / ${(total / MB).toFixed(1)} MB  ${step}%` : `${(got / MB).toFixed(1)} MB`;
      out.write(`\r${label}  ${figure}\x1b[K`);
    },
    /** Ends the line, so whatever is printed next starts on its own. */
    done() {
      if (drawn) out.write("\n");
      drawn = false;
    },
  };
}

/** Streams `url`'s body to `sink`, returning its length; a stall (GUARDS.downloadStall), a break or a short body is an error. */
export async function downloadTo(url: string, opts: { label: string; progress?: Output }, sink: (chunk: Uint8Array) => void): Promise<number> {
  const ctrl = new AbortController();
  let timer = setTimeout(() => ctrl.abort(), GUARDS.downloadStall);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ctrl.abort(), GUARDS.downloadStall);
  };
  let meter: ReturnType<typeof progressMeter> | undefined;
  try {
    let res: Response;
    try {
      res = await fetch(url, { signal: ctrl.signal, redirect: "follow" });
    } catch (err) {
      throw new DownloadError(`cannot reach ${url} (${reason(err)})`);
    }
    if (!res.ok) throw new DownloadError(`${url}: ${res.status === 404 ? "not found (HTTP 404)" : `HTTP ${res.status}`}`);
    const total = Number(res.headers.get("content-length")) || undefined;
    meter = opts.progress ? progressMeter(opts.progress, opts.label, total) : undefined;
    let got = 0;
    try {
      if (res.body) {
        for await (const chunk of res.body) {
          rearm();
          got += chunk.length;
          meter?.update(got);
          sink(chunk);
        }
      }
    } catch (err) {
      if (err instanceof VxError) throw err;
      throw new DownloadError(`the download of ${opts.label} broke off after ${got} bytes (${reason(err)})`);
    }
    if (total !== undefined && got !== total) throw new DownloadError(`the download of ${opts.label} ended early (${got} of ${total} bytes)`);
    meter?.done();
    return got;
  } finally {
    meter?.done();
    clearTimeout(timer);
  }
}

/** More than any version.txt or checksums.txt needs: a bigger body is not the release's. */
const MAX_TEXT_BYTES = 1 << 20;

/** A small text asset (the version, the checksum list), collected in memory up to MAX_TEXT_BYTES. */
export async function downloadText(url: string, label: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let got = 0;
  await downloadTo(url, { label }, (c) => {
    got += c.length;
    if (got > MAX_TEXT_BYTES) throw new DownloadError(`${url} is over ${MAX_TEXT_BYTES} bytes, too big for ${label}`);
    chunks.push(c);
  });
  return Buffer.concat(chunks).toString("utf8");
}

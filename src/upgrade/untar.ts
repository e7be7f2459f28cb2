// Takes `vx` out of a release archive by streaming, by the installer's rules: one entry, a regular file named `vx` (a second is
// refused: tar would let it replace the first), at most MAX_BINARY_BYTES by its header and by the bytes written.
import { createReadStream, writeSync } from "node:fs";
import { VxError, errorMessage } from "../errors";
import { MAX_BINARY_BYTES } from "../release-info";

const BLOCK = 512;

const KINDS: Record<string, string> = {
  "1": "a hard link",
  "2": "a symbolic link",
  "3": "a character device",
  "4": "a block device",
  "5": "a directory",
  "6": "a named pipe",
};

type Header = { name: string; type: string; size: number };

function field(h: Uint8Array, offset: number, length: number): string {
  const bytes = h.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder("latin1").decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** A ustar header, or undefined when `h` is not one (its checksum does not add up). */
function parseHeader(h: Uint8Array): Header | undefined {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (h[i] as number);
  if (Number.parseInt(field(h, 148, 8).trim(), 8) !== sum) return undefined;
  const prefix = field(h, 345, 155);
  const full = prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100);
  // A directory's name ends in "/": "vx/" is vx as a directory, refused as such.
  const name = full.endsWith("/") ? full.slice(0, -1) : full;
  // A size too big for 11 octal digits is stored in base 256 (high bit set): far over any limit.
  const sizeText = field(h, 124, 12).trim();
  const size = (h[124] as number) & 0x80 ? Number.POSITIVE_INFINITY : /^[0-7]+$/.test(sizeText) ? Number.parseInt(sizeText, 8) : Number.NaN;
  return { name, type: String.fromCharCode(h[156] as number), size };
}

/** Writes the archive's `vx` to `fd`: a VxError (ending in `tail`) for a bad archive, a write's own error as it is; `limit` for tests. */
export async function extractVx(archivePath: string, fd: number, asset: string, tail: string, limit = MAX_BINARY_BYTES): Promise<void> {
  const refuse = (what: string) => new VxError(`${asset} ${what} - ${tail}`);
  // Loaded here, not at the top: node:zlib costs every vx start more than an empty program does.
  // Before the stream exists, so no error of its can fire with no listener.
  const { createGunzip } = await import("node:zlib");
  const source = createReadStream(archivePath);
  const gunzip = createGunzip();
  source.on("error", (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  let header: Header | undefined;
  let block = new Uint8Array(BLOCK);
  let filled = 0;
  /** Bytes of vx still to write, then padding still to skip. */
  let data = 0;
  let padding = 0;
  let done = false;
  /** A failed write is the disk's doing, not the archive's: the caller names it as such. */
  let writeError: unknown;
  try {
    for await (const chunk of gunzip as AsyncIterable<Uint8Array>) {
      let at = 0;
      while (at < chunk.length && !done) {
        if (data > 0) {
          const n = Math.min(data, chunk.length - at);
          try {
            for (let w = 0; w < n; ) w += writeSync(fd, chunk, at + w, n - w);
          } catch (err) {
            writeError = err;
            throw err;
          }
          data -= n;
          at += n;
          continue;
        }
        if (padding > 0) {
          const n = Math.min(padding, chunk.length - at);
          padding -= n;
          at += n;
          continue;
        }
        const n = Math.min(BLOCK - filled, chunk.length - at);
        block.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled < BLOCK) continue;
        filled = 0;
        if (header) {
          // After vx only the end-of-archive block may follow; tar itself reads no further.
          if (block.some((b) => b !== 0)) throw refuse("holds more than the vx binary (a release archive holds vx alone)");
          done = true;
          break;
        }
        header = parseHeader(block);
        if (!header) throw refuse("is not a tar archive");
        if (header.name !== "vx") throw refuse(`holds "${header.name}" where the vx binary should be`);
        const kind = header.type === "0" || header.type === "\0" ? undefined : (KINDS[header.type] ?? `an entry of type "${header.type}"`);
        if (kind) throw refuse(`holds vx as ${kind}, not a regular file; refusing it`);
        if (!(header.size <= limit)) {
          const size = Number.isFinite(header.size) ? `${header.size} bytes` : "an unreadable size";
          throw refuse(`holds a vx of ${size}, over the ${limit}-byte limit for a vx binary; refusing it`);
        }
        data = header.size;
        padding = (BLOCK - (header.size % BLOCK)) % BLOCK;
        block = new Uint8Array(BLOCK);
      }
      if (done) break;
    }
  } catch (err) {
    if (err instanceof VxError || (writeError !== undefined && err === writeError)) throw err;
    throw refuse(`is not a readable archive (${errorMessage(err)})`);
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (!header) throw refuse("holds no vx binary");
  if (data > 0 || padding > 0 || filled > 0) throw refuse("is cut short (it ends inside vx)");
}

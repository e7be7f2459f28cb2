// A child's output read with a bound: lines go to a capped sink and only a bounded tail is kept, so memory stays small
// whatever the child writes. The stream is always read to its end, so the child never blocks on a full pipe.
import { COUNTS } from "./time";

export type CappedSink = {
  /** Writes `text` (whole lines, each ending in a newline) while they fit under the cap; the rest is dropped. */
  write(text: string): void;
  /** Counts bytes dropped undecoded (the cap was reached before they came). */
  drop(bytes: number): void;
  full(): boolean;
  dropped(): number;
};

/** A sink over `write` that takes at most `capBytes` (UTF-8) of whole lines; what does not fit is dropped. */
export function cappedSink(write: (text: string) => void, capBytes: number): CappedSink {
  let used = 0;
  let dropped = 0;
  let full = false;
  return {
    write(text) {
      const n = Buffer.byteLength(text);
      if (!full && used + n <= capBytes) {
        used += n;
        write(text);
        return;
      }
      // A chunk can be larger than the room left (a loaded reader gets big ones): its whole lines that fit go first.
      let fit = 0;
      let fitBytes = 0;
      for (let start = 0; !full && start < text.length; ) {
        const end = text.indexOf("\n", start) + 1 || text.length;
        const b = Buffer.byteLength(text.slice(start, end));
        if (used + fitBytes + b > capBytes) break;
        fitBytes += b;
        fit = end;
        start = end;
      }
      if (fit > 0) {
        used += fitBytes;
        write(text.slice(0, fit));
      }
      full = true;
      dropped += n - fitBytes;
    },
    drop(bytes) {
      full = true;
      dropped += bytes;
    },
    full: () => full,
    dropped: () => dropped,
  };
}

export type Drain = {
  /** Settles when the stream ended, failed or was stopped; never rejects. */
  done: Promise<void>;
  /** Gives up reading (a holder that never closes it); what arrived is kept. */
  stop(): Promise<void>;
  /** The last lines of the output (at most the asked number, each cut to LINE_CHARS). */
  tail(): string;
  bytes(): number;
};

/** A line longer than this is cut, in the sink and the tail alike. */
export const LINE_CHARS = COUNTS.outputLineChars;
const TAIL_BYTES = COUNTS.outputTailBytes;

/** `line`, cut to LINE_CHARS with a note when it was longer (`over`: longer than what is kept of it). */
function marked(line: string, over = false): string {
  return over || line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)} [... cut: a line longer than ${LINE_CHARS} characters]` : line;
}

/** Reads `stream` to its end: whole lines go to `sink` while it takes them; the last `tailLines` lines stay readable. */
export function drainBounded(stream: ReadableStream<Uint8Array>, opts: { tailLines: number; sink?: CappedSink }): Drain {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const ring: Uint8Array[] = [];
  let ringBytes = 0;
  let total = 0;
  // The start of the line the last chunk ended inside (at most LINE_CHARS of it), for the sink.
  let partial = "";
  let partialOver = false;

  const toSink = (chunk: Uint8Array, last: boolean) => {
    const sink = opts.sink;
    if (!sink) return;
    if (sink.full()) {
      sink.drop(chunk.length);
      return;
    }
    const parts = decoder.decode(chunk, { stream: !last }).split("\n");
    const first = partial + parts[0];
    if (parts.length > 1) {
      const lines = [marked(first, partialOver), ...parts.slice(1, -1).map((l) => marked(l))];
      sink.write(`${lines.join("\n")}\n`);
      partialOver = false;
    }
    const rest = parts.length > 1 ? (parts[parts.length - 1] as string) : first;
    partialOver ||= rest.length > LINE_CHARS;
    partial = rest.slice(0, LINE_CHARS);
    if (last && partial !== "") sink.write(`${marked(partial, partialOver)}\n`);
  };

  // The tail: the last TAIL_BYTES of raw output, decoded only when asked for.
  const keep = (chunk: Uint8Array) => {
    const piece = chunk.length > TAIL_BYTES ? chunk.subarray(chunk.length - TAIL_BYTES) : chunk;
    ring.push(piece);
    ringBytes += piece.length;
    while (ring.length > 1 && ringBytes - (ring[0] as Uint8Array).length >= TAIL_BYTES) ringBytes -= (ring.shift() as Uint8Array).length;
  };

  const done = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        total += r.value.length;
        keep(r.value);
        toSink(r.value, false);
      }
    } catch {
      // Cancelled, or the pipe failed: what arrived is kept.
    }
    toSink(new Uint8Array(), true);
  })();

  return {
    done,
    stop: () => reader.cancel().catch(() => undefined),
    tail() {
      let text = new TextDecoder().decode(Buffer.concat(ring));
      // Once the ring has let bytes go it starts inside a line: that piece is not a whole line.
      if (total > ringBytes) text = text.slice(text.indexOf("\n") + 1);
      const lines = text.split("\n").filter((l) => l.trim() !== "");
      return lines
        .slice(-opts.tailLines)
        .map((l) => marked(l))
        .join("\n");
    },
    bytes: () => total,
  };
}

// bounded-output.ts: a child's output to a capped sink line by line, with a bounded tail.
import { describe, expect, test } from "bun:test";
import { LINE_CHARS, cappedSink, drainBounded } from "../../src/bounded-output";
import { COUNTS } from "../../src/time";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === "string" ? enc.encode(chunk) : chunk);
      c.close();
    },
  });
}

async function drain(chunks: (string | Uint8Array)[], cap = 1 << 20, tailLines = 3) {
  const written: string[] = [];
  const sink = cappedSink((t) => written.push(t), cap);
  const d = drainBounded(streamOf(chunks), { tailLines, sink });
  await d.done;
  return { log: written.join(""), sink, d };
}

describe("drainBounded", () => {
  test("whole lines reach the sink as they complete; a line split over chunks (and a character over bytes) is one line", async () => {
    const euro = new TextEncoder().encode("€");
    const { log, d } = await drain(["one\ntw", "o\nthree ", euro.subarray(0, 1), euro.subarray(1), " end"]);
    expect(log).toBe("one\ntwo\nthree € end\n");
    expect(d.tail()).toBe("one\ntwo\nthree € end");
    expect(d.bytes()).toBe(Buffer.byteLength("one\ntwo\nthree € end"));
  });

  test("past the cap nothing more is written, and what was left out is counted", async () => {
    const { log, sink } = await drain(["aaaa\nbbbb\n", "cccc\n", "dddd\n"], 10);
    expect(log).toBe("aaaa\nbbbb\n");
    expect(sink.full()).toBe(true);
    expect(sink.dropped()).toBe(10);
  });

  test("one chunk larger than the room left: its whole lines that fit are written, the rest counted (a loaded reader gets big chunks)", async () => {
    const { log, sink } = await drain(["aaaa\nbbbb\ncccc\ndddd\n"], 12);
    expect(log).toBe("aaaa\nbbbb\n");
    expect(sink.full()).toBe(true);
    expect(sink.dropped()).toBe(10);
    const first = await drain(["a-line-longer-than-the-cap\nshort\n"], 8);
    expect(first.log).toBe("");
    expect(first.sink.dropped()).toBe(33);
  });

  test("a line longer than LINE_CHARS is cut with a note, in the log and the tail", async () => {
    const long = "x".repeat(LINE_CHARS + 10);
    const { log, d } = await drain([long.slice(0, 3000), long.slice(3000), "\nshort\n"]);
    const cut = `${"x".repeat(LINE_CHARS)} [... cut: a line longer than ${LINE_CHARS} characters]`;
    expect(log).toBe(`${cut}\nshort\n`);
    expect(d.tail()).toBe(`${cut}\nshort`);
  });

  test("the tail is the last lines, also after far more than it keeps went by", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const { d } = await drain([`${lines.join("\n")}\n`], 100, 3);
    expect(d.tail()).toBe("line 19997\nline 19998\nline 19999");
    expect(COUNTS.outputTailBytes).toBeLessThan(lines.join("\n").length);
  });
});

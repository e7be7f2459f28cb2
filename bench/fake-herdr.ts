#!/usr/bin/env bun
/**
 * CPU of one call of the tests' fake herdr (`herdr agent list` on an installed fake: the bash client
 * plus its share of the test process's server, read from /proc), against an empty Bun program started
 * the same way, the least any fake run as its own Bun process per call costs. The suite makes a couple
 * of thousand such calls (mostly a sentinel's passes), so this is test time.
 * Usage: bun bench/fake-herdr.ts [runs]
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeHerdr } from "../test/fakes/herdr-control";
import { fakeHerdrServerPid, stopFakeHerdrServer } from "../test/fakes/herdr-host";
import { interleavedCpu } from "./lib";

const runs = Number(process.argv[2] ?? 40);
const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-bench-fake-herdr-")));
// The helpers' own temp dirs (the fake's client, the tools dir) go inside it, so the removal at the end takes them too.
process.env.TMPDIR = base;
const TICK_MS = 1000 / 100; // USER_HZ

/** The user + system CPU of `pid` so far, in ms (/proc/<pid>/stat fields 14 and 15). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

try {
  const bin = join(base, "bin");
  const env = { ...installFakeHerdr(bin), HOME: base };
  const client = join(bin, "herdr");
  const empty = join(base, "empty.js");
  writeFileSync(empty, "");
  const server = fakeHerdrServerPid();
  if (server === undefined) throw new Error("the fake herdr's server is not running");
  const before = cpuOf(server);
  const [fake, bare] = interleavedCpu(
    [
      { argv: [client, "agent", "list"], cwd: base, env },
      { argv: [process.execPath, empty], cwd: base, env },
    ],
    runs,
  );
  // interleavedCpu runs each command runs + 5 times (5 warm-ups).
  const serverShare = (cpuOf(server) - before) / (runs + 5);
  const perCall = fake! + serverShare;
  console.log(`runs: ${runs} each, interleaved (median user + system CPU)`);
  console.log(`fake herdr call: client ${fake!.toFixed(1)} ms + server ${serverShare.toFixed(1)} ms (mean) = ${perCall.toFixed(1)} ms`);
  console.log(`empty bun program: ${bare!.toFixed(1)} ms`);
  console.log(`ratio fake call / empty bun: ${(perCall / bare!).toFixed(2)}x`);
} finally {
  stopFakeHerdrServer();
  rmSync(base, { recursive: true, force: true });
}

// A state root on a full or read-only file system (issue 25): one line naming the file and what to
// do, never "unexpected error", and no temporary file left behind. The disk is real: a tmpfs filled
// to the last byte, or the state root bind-mounted read-only, in namespaces of the test's own.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, sandbox } from "../helpers";
import { MOUNT, canUnshare, inNamespaces } from "../namespaces";

// $1 the state root, $2 full|ro, then vx's argv. After vx, the temporary files left in the state
// root are listed on stdout (the tmpfs is gone with the namespace).
const SCRIPT = `root=$1 mode=$2; shift 2
if [ "$mode" = full ]; then
  ${MOUNT} -t tmpfs -o size=64k tmpfs "$root" || exit 97
  head -c 1000000 /dev/zero > "$root/filler" 2>/dev/null
  # Full for sure: else the sentinel would start and run on.
  if printf x > "$root/probe" 2>/dev/null; then exit 98; fi
  rm -f "$root/probe"
else
  ${MOUNT} --bind "$root" "$root" && ${MOUNT} -o remount,bind,ro "$root" || exit 97
fi
"$@"; code=$?
find "$root" -name '*.tmp'
exit $code`;

describe.skipIf(!canUnshare)("a state root that cannot be written", () => {
  for (const [mode, why] of [
    ["full", "no space is left on its device (ENOSPC) - free some space there"],
    ["ro", "its file system is read-only (EROFS) - make it writable (or run vx with a HOME on a writable disk)"],
  ] as const) {
    test(`${mode}: the sentinel says which file and what to do, in one line`, async () => {
      using s = sandbox();
      const root = join(s.home, ".vexillum");
      mkdirSync(root);
      const r = await inNamespaces(SCRIPT, [root, mode, VX_BIN, "sentinel"], { cwd: s.project, env: s.env });
      // The first write each meets: the lock is opened on a full disk, its pid file is not written.
      const file = mode === "full" ? "sentinel.pid" : "sentinel.lock";
      expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: cannot write ${join(root, file)}: ${why}, then run the command again\n` });
    });
  }
});

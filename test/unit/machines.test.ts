import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installPlan, parseProbe, platformOf, thisPlatform } from "../../src/machines/install";
import { assertDestination, assertMachineName, loadMachines, machinesFile, removeMachine, saveMachine } from "../../src/machines/registry";
import { controlPath, shellWord, sshArgv } from "../../src/machines/ssh";
import { VERSION } from "../../src/version";
import * as v from "valibot";
import { TaskSchema } from "../../src/state/schemas";
import { linkStateFile } from "../../src/machines/link-state";
import { taskFixture } from "../helpers";

const entry = { destination: "box", added_at: "2026-12-06T00:00:00.000Z", vx_path: "/home/u/.local/bin/vx", vx_version: VERSION, platform: "linux-x64" };

describe("machine names and destinations (MCH-01)", () => {
  test("names: lowercase words of letters, digits and -, never local", () => {
    for (const ok of ["gpu", "box-2", "0a"]) expect(assertMachineName(ok, "machine")).toBe(ok);
    for (const bad of ["", "GPU", "-x", "a/b", "a b", "local", "x".repeat(33), "..", "a\n"]) expect(() => assertMachineName(bad, "machine")).toThrow(/invalid machine name/);
  });

  test("destinations: what ssh takes as one word, never an option", () => {
    for (const ok of ["host", "user@host", "ssh://u@h:2222", "alias.example"]) expect(assertDestination(ok, "machine")).toBe(ok);
    for (const bad of ["", "-oProxyCommand=sh", "a b", "a\tb", "a\nb", "x".repeat(256)]) expect(() => assertDestination(bad, "machine")).toThrow(/invalid ssh destination/);
  });
});

describe("the ssh command line (MCH-02)", () => {
  test("every remote word is one quoted shell word, a quote inside too", () => {
    expect(shellWord("it's $HOME; rm -rf /")).toBe("'it'\\''s $HOME; rm -rf /'");
    // What the remote shell would read: the same words back.
    const line = ["a b", "it's", "$(x)", "`y`", ""].map(shellWord).join(" ");
    const echoed = Bun.spawnSync(["sh", "-c", `printf '%s\\n' ${line}`]).stdout.toString();
    expect(echoed).toBe("a b\nit's\n$(x)\n`y`\n\n");
  });

  test("batch mode, one control connection in the state root, the destination after --", () => {
    const argv = sshArgv("/r", "box", ["vx", "--version"]);
    expect(argv.slice(0, 1)).toEqual(["ssh"]);
    expect(argv).toContain("BatchMode=yes");
    expect(argv).toContain(`ControlPath=/r/ssh/${new Bun.CryptoHasher("sha256").update("box").digest("hex").slice(0, 12)}`);
    expect(controlPath("/r%x", "box")).toStartWith("/r%%x/ssh/");
    expect(argv.slice(-3)).toEqual(["--", "box", "'vx' '--version'"]);
  });
});

describe("the probe and the install plan (MCH-03)", () => {
  test("uname's words become a release platform", () => {
    expect(platformOf("Linux x86_64")).toBe("linux-x64");
    expect(platformOf("Darwin arm64")).toBe("darwin-arm64");
    expect(platformOf("Linux aarch64\n")).toBe("linux-arm64");
    expect(platformOf("FreeBSD riscv64")).toBe("freebsd-riscv64");
  });

  test("a probe's lines: platform, the vx found and its version, or none", () => {
    expect(parseProbe("Linux x86_64\n/home/u/.local/bin/vx\nvx 1.2.3\n")).toEqual({ platform: "linux-x64", vxPath: "/home/u/.local/bin/vx", vxVersion: "1.2.3" });
    expect(parseProbe("Linux x86_64\nnone\n")).toEqual({ platform: "linux-x64", vxPath: undefined, vxVersion: undefined });
    expect(parseProbe("Linux x86_64\n/usr/bin/vx\nunknown\n").vxVersion).toBeUndefined();
  });

  test("the same version is kept, none or an older one replaced, a newer one refused without --force, another platform refused", () => {
    const here = thisPlatform();
    expect(installPlan({ platform: "other-x", vxPath: "/v", vxVersion: VERSION }, "m", false)).toBe("keep");
    expect(installPlan({ platform: here, vxPath: undefined, vxVersion: undefined }, "m", false)).toBe("install");
    expect(installPlan({ platform: here, vxPath: "/v", vxVersion: "0.0.1" }, "m", false)).toBe("install");
    expect(() => installPlan({ platform: here, vxPath: "/v", vxVersion: "999.0.0" }, "m", false)).toThrow(/newer than this .* --force/);
    expect(installPlan({ platform: here, vxPath: "/v", vxVersion: "999.0.0" }, "m", true)).toBe("install");
    expect(() => installPlan({ platform: "plan9-mips", vxPath: undefined, vxVersion: undefined }, "m", false)).toThrow(/is plan9-mips and this vx is/);
  });
});

describe("machines.json (MCH-01)", () => {
  test("saved 0600 with a self id made once; unknown fields of the file and of an entry survive a save", async () => {
    const root = mkdtempSync(join(tmpdir(), "vx-machines-"));
    try {
      await saveMachine(root, "gpu", entry);
      const first = loadMachines(root);
      expect(first.selfId).toMatch(/^[0-9a-f]{16}$/);
      expect(statSync(machinesFile(root)).mode & 0o777).toBe(0o600);
      const raw = JSON.parse(readFileSync(machinesFile(root), "utf8"));
      raw.future = { x: 1 };
      raw.machines.gpu.future_field = "kept";
      writeFileSync(machinesFile(root), JSON.stringify(raw));
      await saveMachine(root, "box", { ...entry, destination: "u@box" });
      const after = JSON.parse(readFileSync(machinesFile(root), "utf8"));
      expect(after.self_id).toBe(first.selfId);
      expect(after.future).toEqual({ x: 1 });
      expect(after.machines.gpu.future_field).toBe("kept");
      expect(Object.keys(after.machines).sort()).toEqual(["box", "gpu"]);
      expect(await removeMachine(root, "gpu")).toBe(true);
      expect(await removeMachine(root, "gpu")).toBe(false);
      expect(Object.keys(loadMachines(root).machines)).toEqual(["box"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a machine name that could leave its directory is refused in the file and in a task", async () => {
    const root = mkdtempSync(join(tmpdir(), "vx-machines-"));
    try {
      writeFileSync(machinesFile(root), JSON.stringify({ schema_version: 1, machines: { "../x": entry } }));
      expect(() => loadMachines(root)).toThrow(/machines\.json/);
      expect(v.safeParse(TaskSchema, { ...taskFixture({ machine: "../x" }) }).success).toBe(false);
      expect(v.safeParse(TaskSchema, { ...taskFixture({ machine: "box" }) }).success).toBe(true);
      expect(() => linkStateFile(root, "../x")).toThrow(/invalid machine name/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a corrupt file is refused by name, never reset", async () => {
    const root = mkdtempSync(join(tmpdir(), "vx-machines-"));
    try {
      writeFileSync(machinesFile(root), "{not json");
      expect(() => loadMachines(root)).toThrow(/machines\.json/);
      await expect(saveMachine(root, "gpu", entry)).rejects.toThrow(/machines\.json/);
      expect(readFileSync(machinesFile(root), "utf8")).toBe("{not json");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** `vx machine add|list|remove|doctor` (MCH-03..05): the work behind the command's parsing. */
import type { Check } from "../check";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { printable } from "../printable";
import { stateRoot } from "../state/paths";
import { isoTime } from "../time";
import { VERSION } from "../version";
import { SCHEMA_VERSION } from "../state/schemas";
import { installPlan, install, probe } from "./install";
import { inFlightOf } from "./mirror";
import { type Machines, loadMachines, machineNamed, noMachine, removeMachine, saveMachine } from "./registry";
import { closeConnection, lastLine, sshRun } from "./ssh";

export type AddOptions = { name: string; destination: string; force: boolean };

/** The compiled binary to copy; a vx run from source has none. */
function copyableSelf(deps: Pick<Deps, "self">): string {
  if (deps.self.length !== 1 || !deps.self[0]) throw new VxError("this vx is not a compiled binary - build it (bun run build) and run dist/vx");
  return deps.self[0];
}

export async function addMachine(deps: Deps, opts: AddOptions): Promise<string> {
  const root = stateRoot(deps.env);
  const existing = loadMachines(root).machines[opts.name];
  if (existing && existing.destination !== opts.destination) {
    throw new VxError(`machine ${opts.name} already exists (${printable(existing.destination)}) - remove it first`);
  }
  const to = { name: opts.name, destination: opts.destination };
  const found = await probe(deps, root, to);
  let vxPath = found.vxPath;
  if (installPlan(found, opts.name, opts.force) === "install") {
    const binary = copyableSelf(deps);
    deps.stderr.write(`vx: installing vx ${VERSION} on ${opts.name} at ~/.local/bin/vx (it had ${found.vxVersion ? `vx ${printable(found.vxVersion)}` : "none"})\n`);
    vxPath = await install(deps, root, to, binary);
  }
  if (!vxPath) throw new VxError(`machine ${opts.name}: no vx found there after the probe`);
  await saveMachine(root, opts.name, {
    destination: opts.destination,
    added_at: isoTime(deps.clock.now()),
    vx_path: vxPath,
    vx_version: VERSION,
    platform: found.platform,
  });
  return `machine ${opts.name}: ${printable(opts.destination)} vx ${VERSION} ${found.platform}\n`;
}

export function machinesText(doc: Machines): string {
  const names = Object.keys(doc.machines).sort();
  if (names.length === 0) return "no machines yet; add one with vx machine add <name> <ssh-destination>\n";
  return names
    .map((n) => {
      const m = doc.machines[n] as Machines["machines"][string];
      return `${n}  ${printable(m.destination)}  vx ${printable(m.vx_version)}  ${printable(m.platform)}\n`;
    })
    .join("");
}

export function machinesJson(doc: Machines): string {
  return `${JSON.stringify({ schema_version: SCHEMA_VERSION, self_id: doc.selfId, machines: doc.machines }, null, 2)}\n`;
}

export async function forgetMachine(deps: Deps, name: string): Promise<string> {
  const root = stateRoot(deps.env);
  const machine = machineNamed(root, name);
  // Its relay is how their news comes back: without the machine they would stay in flight here for good.
  const ids = [...inFlightOf(root, name).values()].flat();
  if (ids.length > 0) throw new VxError(`machine ${name} has ${ids.length} task(s) in flight (${ids.join(", ")}) - wait for them, or strike them, then remove it`);
  await closeConnection(deps, root, machine.destination);
  if (!(await removeMachine(root, name))) throw noMachine(name);
  return `removed machine ${name}\n`;
}

/** MCH-05: the connection, vx there, then the remote's own tool lines under the machine's name. */
export async function machineChecks(deps: Deps, name: string): Promise<Check[]> {
  const root = stateRoot(deps.env);
  const machine = machineNamed(root, name);
  const to = { name, destination: machine.destination };
  const started = deps.clock.monotonic();
  const found = await probe(deps, root, to).catch((err: Error) => err);
  if (found instanceof Error) return [{ status: "missing", name: `machine ${name}`, detail: found.message.replace(/^vx: /, ""), required: true }];
  const checks: Check[] = [{ status: "ok", name: `machine ${name}`, detail: `${printable(machine.destination)} reached in ${Math.round(deps.clock.monotonic() - started)} ms` }];
  if (found.vxVersion !== VERSION || !found.vxPath) {
    const had = found.vxVersion ? `vx ${printable(found.vxVersion)}` : "no vx";
    checks.push({ status: "missing", name: `${name}: vx`, detail: `it has ${had}, this is ${VERSION} - run vx machine add ${name} ${printable(machine.destination)}`, required: true });
    return checks;
  }
  checks.push({ status: "ok", name: `${name}: vx`, detail: `${VERSION} at ${printable(found.vxPath)}` });
  const res = await sshRun(deps, root, to, [found.vxPath, "doctor", "--tools"]);
  for (const line of res.stdout.split("\n")) {
    const m = /^\[(ok|warn|missing|optional)\] ([^-]+?)(?: - (.*))?$/.exec(line.trim());
    if (m) checks.push({ status: m[1] as Check["status"], name: `${name}: ${printable(m[2] as string)}`, detail: m[3] === undefined ? undefined : printable(m[3]), required: m[1] === "missing" });
  }
  if (res.code !== 0 && checks.length === 2) checks.push({ status: "missing", name: `${name}: vx doctor`, detail: lastLine(res.stderr), required: true });
  return checks;
}

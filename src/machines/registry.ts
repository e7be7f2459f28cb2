/** The machines this state root reaches over SSH (MCH-01): `machines.json` under its lock, names and destinations checked before use. */
import { join } from "node:path";
import { UsageError, VxError } from "../errors";
import { printable } from "../printable";
import { isMachineName, newTaskId } from "../state/ids";
import { withLock } from "../state/lock";
import { loadRecord, mergeForSave, saveRecord } from "../state/record";
import { type Machine, MachineSchema, MachinesSchema, SCHEMA_VERSION, keysOf } from "../state/schemas";
import { ensureStateDir } from "../state/files";

const ENTRY_KEYS = keysOf(MachineSchema);
const FILE_KEYS = keysOf(MachinesSchema);

export type Machines = { selfId: string | undefined; machines: Record<string, Machine> };

export function machinesFile(root: string): string {
  return join(root, "machines.json");
}

/** The control sockets' directory (MCH-02), 0700 like every state dir. */
export function sshDir(root: string): string {
  return join(root, "ssh");
}

/** MCH-01: a name becomes a path component and a word on the remote command line, so it is checked first. */
export function assertMachineName(name: string, command: string): string {
  if (!isMachineName(name)) {
    throw new UsageError(`invalid machine name "${printable(name)}" - use 1-32 lowercase letters, digits and -, not "local"`, command);
  }
  return name;
}

/** MCH-01: never an option to ssh, never a second word. */
export function assertDestination(destination: string, command: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (destination.length === 0 || destination.length > 255 || destination.startsWith("-") || /[\s\x00-\x1f\x7f]/.test(destination)) {
    throw new UsageError(`invalid ssh destination "${printable(destination)}" - give a host, user@host or a Host alias of ~/.ssh/config`, command);
  }
  return destination;
}

export function loadMachines(root: string): Machines {
  const loaded = loadRecord(machinesFile(root), MachinesSchema, true);
  return { selfId: loaded?.value.self_id, machines: loaded?.value.machines ?? {} };
}

export function noMachine(name: string): VxError {
  return new VxError(`no machine named ${name} - see vx machine list`);
}

export function machineNamed(root: string, name: string): Machine {
  const machine = loadMachines(root).machines[name];
  if (!machine) throw noMachine(name);
  return machine;
}

/** One read-modify-write under `machines.lock`; unknown fields of the file and of each entry stay (STA-06). */
async function update(root: string, change: (machines: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  ensureStateDir(root, root);
  await withLock(join(root, "machines.lock"), () => {
    const loaded = loadRecord(machinesFile(root), MachinesSchema, true);
    const machines = change({ ...(loaded?.raw.machines as Record<string, unknown> | undefined) });
    const selfId = loaded?.value.self_id ?? newTaskId();
    saveRecord(root, machinesFile(root), { schema_version: SCHEMA_VERSION, self_id: selfId, machines }, FILE_KEYS);
  });
}

export async function saveMachine(root: string, name: string, entry: Machine): Promise<void> {
  await update(root, (machines) => {
    const previous = machines[name];
    const onDisk = typeof previous === "object" && previous !== null ? (previous as Record<string, unknown>) : undefined;
    return { ...machines, [name]: mergeForSave(entry, ENTRY_KEYS, onDisk) };
  });
}

/** False when there was no such machine. */
export async function removeMachine(root: string, name: string): Promise<boolean> {
  let found = false;
  await update(root, (machines) => {
    found = name in machines;
    const { [name]: _, ...rest } = machines;
    return rest;
  });
  return found;
}

/** `vx doctor`: a read-only health report of the vexillum environment (section 16). */
import type { AgentInfo } from "../backends/agents";
import { listedAgents, liveCommanders, readCommanders } from "../commanders/check";
import { commandersCheck } from "../doctor/commanders";
import { gitCommonDir } from "../camps/git";
import { defineVxCommand } from "../command";
import { campSetupChecks } from "../doctor/camp-setup";
import { campChecks } from "../doctor/camps";
import { forumCheck } from "../doctor/forum";
import { notifyCheck } from "../doctor/notify";
import { hookProbeCheck } from "../doctor/probe";
import { recordChecks } from "../doctor/records";
import type { Check } from "../check";
import { renderReport } from "../doctor/report";
import { hookCheck, scaffoldChecks } from "../doctor/scaffold";
import { pendingWakesCheck, sentinelCheck } from "../doctor/sentinel";
import { shadowCheck, stateRootCheck } from "../doctor/state";
import { timeScaleCheck, toolChecks } from "../doctor/tools";
import { machineLines } from "../doctor/machines";
import { UsageError } from "../errors";
import { HARNESSES } from "../harnesses";
import { loadConfig } from "../project";
import { gitToplevel, projectPaths, realpathOr, refuseInsideCamp, stateRoot } from "../state/paths";
import type { ProjectConfig } from "../state/schemas";
import { colourReport } from "../ui/terminal";
import type { Deps } from "../deps";

export const doctorCommand = defineVxCommand({
  name: "doctor",
  summary: "Report on the health of the vexillum environment",
  usage: ["doctor [--tools]"],
  args: {
    tools: { type: "boolean", description: "Only the tool lines, anywhere (what vx machine doctor reads on a machine)" },
  },
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unexpected argument "${args._[0]}"`, "doctor");
    const root = stateRoot(deps.env);
    if (args.tools) return report(deps, [...(await toolChecks(deps, undefined, true)), ...timeScaleCheck(deps)]);
    refuseInsideCamp(deps.cwd, root);
    const top = await gitToplevel(deps.cwd, deps.exec, deps.env);
    if (top) refuseInsideCamp(top, root);
    let config: ProjectConfig | undefined;
    const checks: Check[] = [];
    const projectLines: Check[] = [];
    if (!top) {
      projectLines.push({ status: "missing", name: "git repository", detail: "current directory is not a git repository", required: true });
    } else {
      projectLines.push({ status: "ok", name: "git repository", detail: top });
      try {
        config = loadConfig(top);
        projectLines.push(config ? { status: "ok", name: "project initialized" } : { status: "missing", name: "project initialized", detail: "run 'vx init'", required: true });
      } catch (err) {
        projectLines.push({ status: "missing", name: "project initialized", detail: `${(err as Error).message}; fix it or run 'vx init'`, required: true });
      }
    }
    checks.push(...(await toolChecks(deps, config)));
    checks.push(...timeScaleCheck(deps));
    checks.push(stateRootCheck(root));
    checks.push(...projectLines);
    checks.push(shadowCheck(deps));
    if (top && config) {
      checks.push(...scaffoldChecks(top, config, realpathOr(deps.cwd), root));
      if (config.commander) checks.push(...(await HARNESSES[config.commander].commander.liveChecks({ env: deps.env, top, root, gitDir: () => gitCommonDir(top, deps.exec) })));
      const hook = hookCheck(top);
      checks.push(hook.check);
      if (hook.command) checks.push(await hookProbeCheck(deps, hook.command, deps.env.HOME ?? ""));
      checks.push(...notifyCheck(top, config, deps.env.PATH));
      checks.push(...(await campSetupChecks(deps, top, config)));
    }
    checks.push(await sentinelCheck(deps, root));
    checks.push(forumCheck(root));
    if (top && config) {
      const paths = projectPaths(root, top);
      // One agent list at most, shared by the commanders and pending-wakes checks.
      let agents: Promise<AgentInfo[]> | undefined;
      const listAgents = () => (agents ??= listedAgents(deps));
      checks.push(...(await commandersCheck(paths, listAgents, deps)));
      checks.push(await pendingWakesCheck(deps, root, paths, () => commanderLive(deps, paths, listAgents)));
      checks.push(...recordChecks(paths));
      checks.push(...(await campChecks(paths, deps.exec, deps.env)));
    }
    checks.push(...machineLines(root));
    return report(deps, checks);
  },
});

async function report(deps: Deps, checks: Check[]): Promise<number> {
  const { text, exit } = renderReport(checks);
  // People read a terminal: consola's colours and icons there, the plain lines everywhere else.
  deps.stdout.write(deps.colourOut ? await colourReport(text) : text);
  return exit;
}

/** DOC-13: whether any commander registered for this project is live now. */
async function commanderLive(deps: Deps, paths: ReturnType<typeof projectPaths>, listAgents: () => Promise<AgentInfo[]>): Promise<boolean> {
  try {
    const registry = readCommanders(paths);
    if (!registry) return false;
    const agents = await listAgents().catch(() => []);
    return (await liveCommanders(registry, { ...deps, agents })).length > 0;
  } catch {
    return false;
  }
}

// The launcher moved to backends/soldier-exec.ts (the tmux launch starts it); cli.ts still loads it from here.
export { soldierExec } from "../backends/soldier-exec";

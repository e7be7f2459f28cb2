/** The backend names alone, so the schemas read them without loading a backend. */
export const BACKEND_NAMES = ["herdr", "tmux"] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

/** The backend of a project that names none, and of a task written before the field existed. */
export const DEFAULT_BACKEND: BackendName = "herdr";

/** The backend holding a task's soldier (HRD-01's default for tasks older than the field). */
export function backendOf(task: { backend?: BackendName }): BackendName {
  return task.backend ?? DEFAULT_BACKEND;
}

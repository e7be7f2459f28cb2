// One `vx doctor` line (DOC-02); its own module so harness and backend homes need not import doctor's report.

/** `optional`: a tool this project does not need is not installed (only a word, never a failure). */
type CheckStatus = "ok" | "warn" | "missing" | "optional";

export type Check = {
  status: CheckStatus;
  name: string;
  detail?: string;
  /** A missing required check makes the environment not ready (exit 1). */
  required?: boolean;
};

// Which guest call the host is inside. Host functions may be called only
// from ws_init, ws_process and ws_migrate: the SDK's abort handler uses this to decide
// whether it may log (a log from the start function or ws_alloc would be
// the fatal REENTRANT instead of the trap the abort means), and state
// handles use it to decide how to report a bad name.

/** What the module is doing. */
export enum Phase {
  /** The start function or between calls: no host calls allowed. */
  Idle,
  /** Inside ws_init. */
  Init,
  /** Inside ws_process. */
  Process,
  /** Inside ws_migrate (ABI 1.2): only log and processingTime may be called. */
  Migrate,
}

let phase = Phase.Idle;

/** Marks the start (Init, Process) or the end (Idle) of a host-driven call. */
export function setPhase(p: Phase): void {
  phase = p;
}

/** Returns what the module is doing. */
export function currentPhase(): Phase {
  return phase;
}

/** Reports whether host functions may be called now. */
export function hostCallsAllowed(): bool {
  return phase != Phase.Idle;
}

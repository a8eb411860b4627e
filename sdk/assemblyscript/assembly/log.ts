import { hostLog } from "./host";
import { Scratch } from "./scratch";

/** The severity of a log line, as in the ABI. */
export enum Level {
  Trace = 0,
  Debug = 1,
  Info = 2,
  Warn = 3,
  Error = 4,
}

/** logBuf holds the UTF-8 of the line being logged; reused so logging does not allocate. */
const logBuf = new Scratch(256);

/**
 * Writes msg to the host's log at level. Allowed anywhere in init and
 * process. The host keeps at most 1000 lines per batch and cuts lines at
 * 4096 bytes.
 */
export function log(level: Level, msg: string): void {
  const lv = <i32>level;
  logBuf.reset();
  const off = logBuf.putUtf8(msg);
  hostLog(lv < Level.Trace ? Level.Trace : lv > Level.Error ? Level.Error : lv, logBuf.at(off), logBuf.len - off);
  logBuf.trim();
}

/** Logs msg at Level.Trace. */
export function logTrace(msg: string): void {
  log(Level.Trace, msg);
}

/** Logs msg at Level.Debug. */
export function logDebug(msg: string): void {
  log(Level.Debug, msg);
}

/** Logs msg at Level.Info. */
export function logInfo(msg: string): void {
  log(Level.Info, msg);
}

/** Logs msg at Level.Warn. */
export function logWarn(msg: string): void {
  log(Level.Warn, msg);
}

/** Logs msg at Level.Error. */
export function logError(msg: string): void {
  log(Level.Error, msg);
}

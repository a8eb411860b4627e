import { hostEventTime, hostProcessingTime } from "./host";

// A guest has no clock of its own (no WASI clock, and Date.now would be an
// import the host refuses): time comes from the host, which is what lets a
// replay see the same times.

/**
 * Returns the event time of the record being processed, in Unix
 * nanoseconds (the same as Record.eventTime). Only during process.
 */
export function eventTime(): i64 {
  return hostEventTime();
}

/**
 * Returns the host's clock, in Unix nanoseconds, read once when the current
 * init or process call started. It is not replayed: use eventTime for logic
 * that must give the same result on a replay.
 */
export function processingTime(): i64 {
  return hostProcessingTime();
}

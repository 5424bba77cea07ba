// Letting this process's pending writes go out before CPU work holds the event loop. The HTTP
// client writes a request to its socket a task or two after it is asked to make it, and the
// server writes a response stream's queued lines only between tasks: CPU work started at once
// (a signature check, a PGlite query, reading a body already received, the model's first
// steps) would hold them back until it is done.
export async function afterPendingWrites(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

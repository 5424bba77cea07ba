// A request's one deadline (docs/contract.md, section 2): an AbortSignal that fires when the request's time
// is up, counted from its arrival, and a way to wait on work no longer than that.

/**
 * Waits for `work` until `signal` fires, then rejects with the signal's reason. The work goes
 * on by itself: what must end properly (a payment on its way, its ledger record) ends
 * properly, and a later failure of it is its owner's to handle, never an unhandled rejection.
 */
export function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** True when `error` is the deadline firing, not a failure of the work it cut short. */
export function isDeadline(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && error === signal.reason;
}

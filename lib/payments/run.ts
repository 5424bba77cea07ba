// A payment's run as a door receives it from the core: the updates as they happen, in order, and
// one typed result at the end. The updates are buffered, so a door that starts reading late (the
// chat, once its stream has begun) misses none, and one that reads only the result (an MCP tool)
// holds nothing up. Free of imports but the vocabulary: the front door (./index.ts) hands these
// out without loading the halves of the core that fill them.
import type { PaymentUpdate } from "./payment";

export type PaymentRun<Result> = {
  /** Each update of the payment the moment it is known, in order; ends when the run does, never throws. */
  events: AsyncIterable<PaymentUpdate>;
  /** How it came out; rejects only on a fault (the door's deadline, a database that failed). */
  result: Promise<Result>;
};

/** Runs `work`, handing out what it tells through `emit` as the run's events. */
export function startRun<Result>(work: (emit: (update: PaymentUpdate) => void) => Promise<Result>): PaymentRun<Result> {
  const buffered: PaymentUpdate[] = [];
  let ended = false;
  const waiting = new Set<() => void>();
  const notify = () => {
    for (const wake of waiting) wake();
    waiting.clear();
  };
  const emit = (update: PaymentUpdate) => {
    if (ended) return;
    buffered.push(update);
    notify();
  };
  let result: Promise<Result>;
  try {
    result = work(emit);
  } catch (error) {
    result = Promise.reject(error);
  }
  const end = () => {
    ended = true;
    notify();
  };
  result.then(end, end);
  const events: AsyncIterable<PaymentUpdate> = {
    async *[Symbol.asyncIterator]() {
      let next = 0;
      for (;;) {
        while (next < buffered.length) yield buffered[next++] as PaymentUpdate;
        if (ended) return;
        await new Promise<void>((resolve) => waiting.add(resolve));
      }
    },
  };
  return { events, result };
}

// Loading code after the page, for a phone's main thread: an import made once and shared by every
// caller, and a task boundary to put between the steps of a large one, so each step's evaluation
// is a task of its own (a module already evaluated is not evaluated again).

/** A task boundary: what comes after runs in a task of its own. */
export const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** `load`, run once per page load and shared by every caller; a failed one is tried again by the next caller. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (!pending) {
      pending = load();
      pending.catch(() => {
        pending = undefined;
      });
    }
    return pending;
  };
}

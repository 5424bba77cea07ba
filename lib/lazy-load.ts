// Loading code after the page, for a phone's main thread: an import made once and shared by every
// caller, a value built on its first use, and a task boundary to put between the steps of a large
// one, so each step's evaluation is a task of its own (a module already evaluated is not evaluated again).

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

/** `make`'s value, built on the first call and the same one after it: work a page may never need is not done as its code loads. */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

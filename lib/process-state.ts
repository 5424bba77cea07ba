// State that is one per server process, whichever bundle runs the module that holds it. Next
// bundles the start-up hook (instrumentation.ts), the proxy and each route separately, each with
// its own copy of a shared module: a plain module-level map or handle would be one per bundle,
// so the start-up hook's warm-up would fill a cache no route reads, and a database opened there
// would be opened again by the first route. Kept on the process under a registered symbol.

export function processState<T>(name: string, create: () => T): T {
  const key = Symbol.for(`x402-payment-agent.${name}`);
  if (!Reflect.has(globalThis, key)) Reflect.set(globalThis, key, create());
  return Reflect.get(globalThis, key) as T;
}

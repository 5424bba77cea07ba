// What discovery (lib/x402/discovery.ts) is handed to list services with: the configuration,
// and the one rule for what can be paid here, which is the rails' (lib/payments/rails): a
// listing shows only what a registered scheme can pay, as a quote does. Discovery reads no part
// of the payment core itself. Loaded with the rails, by the first discovery, never with the chat
// route.
import type { ServerEnv } from "@/lib/env";
import { checkAnyRequirement } from "@/lib/payments/rails";
import type { DiscoveryEnv } from "@/lib/discovery/listings";

const byEnv = new WeakMap<ServerEnv, ServerEnv & DiscoveryEnv>();

/** Discovery's view of a configuration (the configuration, with what can be paid), made once per configuration object. */
export function discoveryEnvOf(env: ServerEnv): ServerEnv & DiscoveryEnv {
  let discovery = byEnv.get(env);
  if (!discovery) {
    discovery = { ...env, payable: (requirements) => checkAnyRequirement(requirements, env) };
    byEnv.set(env, discovery);
  }
  return discovery;
}

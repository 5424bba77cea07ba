// What a service says it takes, checked before anything is quoted: its 402's Bazaar extension
// declares the input (query parameters or JSON body fields, those required, and for some the
// values allowed). A call that misses a required field or names a value the service does not
// take would be quoted, signed and then refused by the service; it is stopped here instead.
// A service that declares nothing is taken at its word: nothing is checked.
import type { PaymentRequired } from "@x402/core/types";
import { asRecord } from "@/lib/discovery/listings";
import { cleanText } from "@/lib/text";
import { serviceUrl, type ServiceCall } from "@/lib/net/service-call";

const MAX_NAMED_VALUES = 12;

/** A value as services commonly match it: case, accents and surrounding space aside ("sao paulo" is "São Paulo"). */
const comparable = (value: unknown) =>
  String(value)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase();


/** The declared schema of the call's input: the query parameters of a GET, the body of a POST. */
function declaredInput(paymentRequired: PaymentRequired, method: ServiceCall["method"]) {
  const bazaar = asRecord(asRecord(paymentRequired.extensions)?.bazaar);
  const input = asRecord(asRecord(asRecord(asRecord(bazaar?.schema)?.properties)?.input)?.properties);
  const part = asRecord(input?.[method === "POST" ? "body" : "queryParams"]);
  const properties = asRecord(part?.properties);
  const required = Array.isArray(part?.required) ? part.required.filter((name): name is string => typeof name === "string") : [];
  return properties || required.length > 0 ? { properties: properties ?? {}, required } : undefined;
}

/** What is wrong with the call's input by the service's own declaration, in a person's words; undefined when nothing is. */
export function serviceInputProblem(paymentRequired: PaymentRequired, call: ServiceCall, serviceName: string): string | undefined {
  const declared = declaredInput(paymentRequired, call.method);
  if (!declared) return undefined;
  const given: Record<string, unknown> =
    call.method === "POST" ? (asRecord(call.body) ?? {}) : Object.fromEntries(new URL(serviceUrl(call)).searchParams.entries());
  const missing = declared.required.filter((name) => given[name] === undefined || given[name] === "");
  if (missing.length > 0) {
    return `${serviceName} needs ${missing.map((name) => `"${cleanText(name, 40)}"`).join(" and ")}, which the request does not give.`;
  }
  for (const [name, schema] of Object.entries(declared.properties)) {
    const allowed = asRecord(schema)?.enum;
    if (!Array.isArray(allowed) || given[name] === undefined) continue;
    const value = comparable(given[name]);
    if (allowed.some((option) => comparable(option) === value)) continue;
    const options = allowed.slice(0, MAX_NAMED_VALUES).map((option) => cleanText(String(option), 40));
    return `${serviceName} takes ${cleanText(name, 40)} as one of ${options.join(", ")}${allowed.length > MAX_NAMED_VALUES ? ", …" : ""}; not "${cleanText(String(given[name]), 40)}".`;
  }
  return undefined;
}

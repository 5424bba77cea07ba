// What a service says it takes, and what it says when it refuses, in a person's words. Checked
// before anything is quoted: its 402's Bazaar extension declares the input (query parameters or
// JSON body fields, those required, and for some the values allowed); a call that misses a
// required field or names a value the service does not take would be quoted, signed and then
// refused by the service, so it is stopped here instead. A service that refuses a call outright
// (a 4xx before any 402, as an MPP service does for a value it does not know) is said in its own
// terms: what its declaration (its OpenAPI document's parameters, found by the caller) says it
// takes, else the message of its own answer. A service that declares nothing is taken at its word.
import type { PaymentRequired } from "@x402/core/types";
import { asRecord } from "@/lib/discovery/listings";
import { cleanText } from "@/lib/text";
import { serviceUrl, type ServiceCall } from "@/lib/net/service-call";

const MAX_NAMED_VALUES = 12;
const MAX_REFUSAL = 240;

/** What a service declares it takes: each field's schema (an `enum` lists its values), and which are required. */
export type DeclaredInput = { properties: Record<string, unknown>; required: string[] };

/** A value as services commonly match it: case, accents and surrounding space aside ("sao paulo" is "São Paulo"). */
const comparable = (value: unknown) =>
  String(value)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase();

/** "a, b or c": the values a field takes, the first twelve of them. */
function alternatives(values: readonly unknown[]): string {
  const named = values.slice(0, MAX_NAMED_VALUES).map((value) => cleanText(String(value), 40));
  if (values.length > MAX_NAMED_VALUES) return `${named.join(", ")} and others`;
  return named.length > 1 ? `${named.slice(0, -1).join(", ")} or ${named.at(-1)}` : (named[0] ?? "");
}

/** The declared schema of the call's input in its 402's Bazaar extension: the query parameters of a GET, the body of a POST. */
export function bazaarInput(paymentRequired: PaymentRequired, method: ServiceCall["method"]): DeclaredInput | undefined {
  const bazaar = asRecord(asRecord(paymentRequired.extensions)?.bazaar);
  const input = asRecord(asRecord(asRecord(asRecord(bazaar?.schema)?.properties)?.input)?.properties);
  const part = asRecord(input?.[method === "POST" ? "body" : "queryParams"]);
  const properties = asRecord(part?.properties);
  const required = Array.isArray(part?.required) ? part.required.filter((name): name is string => typeof name === "string") : [];
  return properties || required.length > 0 ? { properties: properties ?? {}, required } : undefined;
}

/** A listing's input as discovery keeps it (each field's schema, `required: true` on those required: an OpenAPI operation's parameters). */
export function listingInput(input: Record<string, unknown> | undefined): DeclaredInput | undefined {
  if (!input) return undefined;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(input)) {
    const field = asRecord(schema);
    if (!field) continue;
    properties[name] = field;
    if (field.required === true) required.push(name);
  }
  return Object.keys(properties).length > 0 ? { properties, required } : undefined;
}

/** What is wrong with the call's input by a declaration, in a person's words; undefined when nothing is. */
export function inputProblem(declared: DeclaredInput, call: ServiceCall, serviceName: string): string | undefined {
  const given: Record<string, unknown> =
    call.method === "POST" ? (asRecord(call.body) ?? {}) : Object.fromEntries(new URL(serviceUrl(call)).searchParams.entries());
  const missing = declared.required.filter((name) => given[name] === undefined || given[name] === "");
  if (missing.length > 0) {
    const takes = missing.length === 1 ? asRecord(declared.properties[missing[0] ?? ""])?.enum : undefined;
    return `${serviceName} needs ${missing.map((name) => `"${cleanText(name, 40)}"`).join(" and ")}, which the request does not give${
      Array.isArray(takes) && takes.length > 0 ? `: it takes ${alternatives(takes)}` : ""
    }.`;
  }
  for (const [name, schema] of Object.entries(declared.properties)) {
    const allowed = asRecord(schema)?.enum;
    if (!Array.isArray(allowed) || allowed.length === 0 || given[name] === undefined) continue;
    const value = comparable(given[name]);
    if (allowed.some((option) => comparable(option) === value)) continue;
    return `${serviceName} has nothing for ${cleanText(name, 40)} "${cleanText(String(given[name]), 40)}": it takes ${alternatives(allowed)}.`;
  }
  return undefined;
}

/** What is wrong with the call's input by its 402's own declaration, in a person's words; undefined when nothing is. */
export function serviceInputProblem(paymentRequired: PaymentRequired, call: ServiceCall, serviceName: string): string | undefined {
  const declared = bazaarInput(paymentRequired, call.method);
  return declared ? inputProblem(declared, call, serviceName) : undefined;
}

/**
 * Why a service refused a call (an HTTP 4xx other than 402), in a person's words: what its
 * declaration says is wrong with the call when it says something, else the message its answer
 * carries (`error`, `message`, `detail`, or a short text), quoted; undefined when neither says.
 */
export function serviceRefusalProblem({
  answer,
  call,
  serviceName,
  declared,
}: {
  /** The refusal's body as read (JSON or text). */
  answer: unknown;
  call: ServiceCall;
  serviceName: string;
  declared?: DeclaredInput | undefined;
}): string | undefined {
  const fromDeclaration = declared ? inputProblem(declared, call, serviceName) : undefined;
  if (fromDeclaration) return fromDeclaration;
  const said = refusalMessage(answer);
  return said ? `${serviceName} refused the request, saying: "${said}".` : undefined;
}

/** The message a refusal's body carries, as services commonly put it, cleaned and cut to length. */
function refusalMessage(answer: unknown): string | undefined {
  const record = asRecord(answer);
  const nested = asRecord(record?.error);
  const candidates = record
    ? [record.error, nested?.message, record.message, record.detail, record.title, record.reason]
    : typeof answer === "string" && !/^\s*</.test(answer)
      ? [answer]
      : [];
  const message = candidates.find((value): value is string => typeof value === "string" && value.trim().length > 0);
  return message ? cleanText(message, MAX_REFUSAL).replace(/[.\s]+$/, "") : undefined;
}

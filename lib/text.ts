// Text from strangers (a listing, a service's answer or refusal) before it is shown or quoted:
// one line, no control characters, bounded length.

export function cleanText(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

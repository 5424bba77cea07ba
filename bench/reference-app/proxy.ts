// The reference app's own proxy, which does nothing and matches no request: without a file of its
// own here, the bundler (rooted at the repository for the shared line encoder) takes the
// product's proxy.ts, and the references would pay for the product's security headers.
import { NextResponse } from "next/server";

export function proxy(): NextResponse {
  return NextResponse.next();
}

export const config = { matcher: ["/__reference-app-no-proxy"] };

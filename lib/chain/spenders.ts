// The contracts the page lets a wallet approve to move its USDC, when a quote or a failure offers
// it (a usage-priced payment's one-time allowance): the list is the page's own, so a server's word
// alone never has the wallet hand its tokens to an address it names.
import { PERMIT2_ADDRESS } from "./permit2-address";

const APPROVABLE: readonly `0x${string}`[] = [PERMIT2_ADDRESS];

/** The spender, when it is one the page approves for; undefined otherwise. */
export function approvableSpender(address: string): `0x${string}` | undefined {
  return APPROVABLE.find((known) => known.toLowerCase() === address.toLowerCase());
}

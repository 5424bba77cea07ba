// zod compiles its object parsers with `new Function` where a page allows it, and finds out by
// calling `Function("")` once. The page's content security policy has no 'unsafe-eval', so that
// probe would be blocked and reported as a violation: the browser's few small schemas parse
// without the compiler instead. Imported for this effect by the page's root client component.
import { config } from "zod/mini";

// One setting for zod's full and small builds alike: they share their core.
config({ jitless: true });

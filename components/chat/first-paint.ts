// What the chat page's first paint waits for, shared by the server's page (app/page.tsx, which
// declares the wait) and the client's composer (which carries the id): nothing is painted before
// the composer's HTML is parsed, so a document still arriving is never laid out without it.

/** The composer's element id. */
export const COMPOSER_ID = "composer";

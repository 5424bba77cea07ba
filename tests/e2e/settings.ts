// Settings shared by the Playwright config (which passes them to the server) and the tests
// (which wait on them), so the two cannot drift apart.

/** CHAT_COOLDOWN_SECONDS of the test server: long enough that a slow reply on a busy machine
 * still ends inside it, short enough to wait out. */
export const cooldownSeconds = 10;

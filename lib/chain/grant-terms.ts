// How long an AI app's access grant may last (access-grant.ts), apart from the grant's typed data
// and its hashing: the chat page offers the durations from its first load, which then carries no
// hash function.

/** The longest a grant may last: long enough for an app set up once, short enough to expire. */
export const MAX_GRANT_DAYS = 90;

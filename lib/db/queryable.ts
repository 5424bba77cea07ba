// The one small interface the ledger and the cooldown reach a database through, PGlite or
// Postgres alike: plain SQL, and a transaction. Free of imports, so the migrations and the
// clients that run them share it without importing each other.

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

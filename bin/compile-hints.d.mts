// The types of bin/compile-hints.mjs, a plain Node script so that `npm run build` needs nothing else.
/** The magic comment V8 reads at the top of a script: compile all its functions as it is streamed. */
export const COMPILE_HINT: string;
/** The JavaScript files (relative to .next) a page of the build in `root` loads as it starts. */
export function startupFiles(root: string): string[];
/** The startup files and the chunks their code imports (named in it), relative to .next. */
export function hintedFiles(root: string): string[];
/** Marks the build's startup files in `root` and the chunks they import; returns those it marked. */
export function addCompileHints(root: string): string[];

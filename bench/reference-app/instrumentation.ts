// The reference app's own start-up hook, empty: without a file of its own here, the bundler
// (rooted at the repository for the shared line encoder) takes the product's instrumentation.ts.
export function register(): void {}

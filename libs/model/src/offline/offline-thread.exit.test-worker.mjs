// Test entry for offline-thread.int.spec.ts: a thread that ends before it has loaded anything,
// as one whose code fails to load would.
process.exit(4);

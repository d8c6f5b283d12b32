/**
 * Answers a handler gives again, the very same object, for as long as nothing they are made of
 * changed (features.list: see FeatureService.projectFeatures). The router checks such an answer
 * against the contract once and hands out what that check made, deep-frozen; the browser host
 * writes that out as JSON once. A handler marks an answer only if it never changes it after.
 */
const reusable = new WeakSet<object>();

export function reusableAnswer<T extends object>(value: T): T {
  reusable.add(value);
  return value;
}

export function isReusableAnswer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && reusable.has(value);
}

/** Freezes `value` and everything in it (plain objects and arrays, as the contract's checks make them). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // Into a part already frozen too: freezing is shallow, what it holds may not be.
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}

/** @payrail/core/testing: placeholder until the arbitraries move here. */
export {};

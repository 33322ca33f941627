// What Pi's start needs before the watchdog's code loads: whether this session may leave it
// unloaded for now (the watchdog is off), and the holder that loads it when first needed.
// Other folders import from here; files inside the folder import each other directly.
export { startsDormant, type DormantInput } from "./dormant.ts";
export { DeferredWatchdog, type DeferredDeps, type EarlyInput, LOAD_AFTER_MS } from "./deferred.ts";

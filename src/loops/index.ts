// The deterministic loop detector: the pure detector over call records (src/transcript/), and the live
// monitor around it.
// Other folders import from here; files inside the folder import each other directly.
export {
	DEFAULT_THRESHOLDS,
	LoopDetector,
	WEAK_SIGNALS,
	type LoopSignal,
	type LoopThresholds,
	type SignalKind,
} from "./loop-detector.ts";
export { isCheckCommand, mayChangeFiles } from "./checks.ts";
export { LOOP_RESOLVED_ENTRY, LoopWatch } from "./loop-watch.ts";
export { normalizeCommand } from "./normalize.ts";
export { isNudge } from "./nudge.ts";

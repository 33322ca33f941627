// Stopped-subtree verification: when every child of one orchestration (a parent prompt's
// launches) has come to rest, its stop is verified once against the children's own evidence
// (the claims checker on each child's session file, then one model review for what it could
// not decide); genuine stops get a note for the user, the rest one message to the parent's
// model. Offers the verifier (the session's monitor) and its pure core.
// Other folders import from here; files inside the folder import each other directly.
export { type RunEnd, SubtreeVerifier, type VerifierDeps, VERIFY_ENTRY, type VerifyRecord } from "./verifier.ts";
export {
	atRest,
	childRecord,
	needsReview,
	stopFingerprint,
	stopState,
	type StoppedChild,
	type VerifyConfig,
} from "./stop-state.ts";
export { VERIFY_SOURCE } from "./verdicts.ts";

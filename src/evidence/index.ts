// Evidence: the deterministic claims checker (a closing message's claims against the session's
// own tool log), the unfinished-stop detector (and the sign-offs it leaves alone), the nudge
// that keeps an agent moving, and the live monitor around them. Pure cores over recorded
// events, so `pi-watchdog scan` runs them offline too.
// Other folders import from here; files inside the folder import each other directly.
export { checkClaims, disclosesFailure, type ClaimKind, type ClaimSignal } from "./claims.ts";
export { extractClaims } from "./claims-extract.ts";
export { claimFinding, idleFinding, nudgeText } from "./evidence-findings.ts";
export {
	EvidenceWatch,
	type IdleSettings,
	type Policy,
	POLICY_MEANING,
	type SettleEvidence,
} from "./evidence-watch.ts";
export { factOf, failureIn, type CallFact } from "./facts.ts";
export { EvidenceLog, type Segment, type Stop } from "./log.ts";
export { EvidenceScan, type ClaimsReport, type IdleReport } from "./scan-evidence.ts";
export { unfinishedStop, type IdleKind, type IdleSignal } from "./unfinished.ts";

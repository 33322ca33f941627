// File claims ("changed X", a ticked checklist item naming X) against the edits and writes
// the tool log shows: refused or failed writes contradict, files no call touched are unbacked.
import type { Claim } from "./claims-extract.ts";
import { basename, type ClaimSignal, type Context, samePath, segmentSignal } from "./claim-match.ts";
import type { CallFact } from "./facts.ts";

type FileState = "written" | "refused" | "failed" | "maybe" | "none";

function fileState(ctx: Context, file: string): { state: FileState; at?: CallFact } {
	const base = basename(file);
	let refused: CallFact | undefined;
	let failed: CallFact | undefined;
	let maybe = false;
	for (let i = 0; i < ctx.end; i++) {
		const f = ctx.facts[i] as CallFact;
		if ((f.kind === "edit" || f.kind === "write") && f.path && samePath(file, f.path)) {
			if (f.wrote) return { state: "written", at: f };
			if (f.refused) refused = f;
			else if (f.isError) failed = f;
		} else if (f.shellWrite && f.command?.includes(base)) return { state: "written", at: f };
		else if (f.mentions?.includes(base)) return { state: "written", at: f };
		else if (f.shellWrite && !f.check && !f.isError) maybe = true;
	}
	if (refused) return { state: "refused", at: refused };
	if (failed) return { state: "failed", at: failed };
	return { state: maybe ? "maybe" : "none" };
}

/** Outside the working folder (a temp or home folder): tools write there in path forms not resolved here. */
const OUTSIDE = /^(?:\/tmp\/|\/var\/(?:folders|tmp)\/|\/private\/|~\/|\$(?:HOME|TMPDIR)\b|[A-Za-z]:[\\/]|%TEMP%)/;

export function filesChanged(ctx: Context, claim: Claim): ClaimSignal | undefined {
	const files = (claim.files ?? []).filter((f) => !OUTSIDE.test(f));
	if (!files.length) return undefined;
	const states = files.map((file) => ({ file, ...fileState(ctx, file) }));
	const blocked = states.filter((s) => s.state === "refused" || s.state === "failed");
	const to = Math.max(ctx.segment.firstCall, ctx.end - 1);
	if (blocked.length) {
		const at = blocked.map((s) => s.at?.index ?? 0);
		const words = blocked.map(
			(s) =>
				`${s.file}: the ${s.at?.name} at call ${s.at?.index} ` +
				(s.state === "refused" ? `was refused ("${s.at?.refused}")` : "failed"),
		);
		return {
			kind: claim.kind,
			claim: claim.quote,
			from: Math.min(...at),
			to: Math.max(...at),
			verdict: "contradicted",
			evidence: `${words.join("; ")}; no later call changed ${blocked.length > 1 ? "them" : "it"}`,
		};
	}
	const none = states.filter((s) => s.state === "none");
	const maybe = states.filter((s) => s.state === "maybe");
	const list = (xs: typeof states) =>
		`${xs
			.slice(0, 6)
			.map((s) => s.file)
			.join(", ")}${xs.length > 6 ? `, … (${xs.length - 6} more)` : ""}`;
	if (none.length && (ctx.attributed || claim.kind === "checklist")) {
		return {
			kind: claim.kind,
			claim: claim.quote,
			from: ctx.segment.firstCall,
			to,
			verdict: "contradicted",
			evidence:
				`${none.length} of ${files.length} file(s) said to be changed were changed by no tool call in the ` +
				`session: ${list(none)}`,
		};
	}
	if (none.length && ctx.anyWrite)
		return segmentSignal(ctx, claim, "unbacked", `no tool call in the session changed ${list(none)}`);
	if (maybe.length)
		return segmentSignal(
			ctx,
			claim,
			"unbacked",
			`no edit or write touched ${list(maybe)}; only shell commands that may have written files ran`,
		);
	return undefined;
}

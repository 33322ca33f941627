// The claims checker: each claim of a closing message against the session's own tool log. A
// claim the log contradicts (the check it says passed failed, the file it says it wrote was
// refused, the commit a hook rejected, "implemented" with no edit anywhere) is a blocker; a
// claim the log merely does not back (never run, run before the last edit) is a concern. An
// honest report (failures disclosed) claims nothing to check. Pure; no model call.
import { asksForPlan, type Claim, extractClaims } from "./claims-extract.ts";
import { filesIn } from "./file-names.ts";
import { type ClaimSignal, type Context, delegates, disclosesFailure, segmentSignal } from "./claim-match.ts";
import { filesChanged } from "./claim-files.ts";
import { checkPassed, commandRan, failingChecks, preExisting } from "./claim-checks.ts";
import type { CallFact } from "./facts.ts";
import type { Segment } from "./log.ts";

export type { ClaimKind } from "./claims-extract.ts";
export { type ClaimSignal, disclosesFailure } from "./claim-match.ts";

/** Edits to these do not make an earlier test run stale. */
const DOC_FILE = /\.(md|mdx|txt|rst|adoc)$/i;

export function checkClaims(facts: CallFact[], segment: Segment): ClaimSignal[] {
	const text = segment.stop.text;
	const ticked = lastTicked(facts, segment);
	if (!text.trim() && !ticked) return [];
	const end = Math.min(segment.endCall, facts.length);
	const extracted = extractClaims(text);
	const claims = extracted.claims;
	const review = extracted.review || asksForPlan(segment.prompt);
	const ctx: Context = {
		facts,
		end,
		segment,
		disclosed: disclosesFailure(text),
		anyWrite: false,
		attributed: !review && claims.some((c) => c.kind === "implemented"),
		review,
		commands: 0,
		delegated: false,
	};
	for (let i = 0; i < end; i++) {
		const f = facts[i] as CallFact;
		if (f.command !== undefined) ctx.commands++;
		if (delegates(f)) ctx.delegated = true;
		const wrote = f.wrote || (f.shellWrite && !f.check && !f.isError);
		if (wrote || f.mentions !== undefined) ctx.anyWrite = true;
		if (wrote && !(f.path && DOC_FILE.test(f.path))) ctx.lastCodeEdit = i;
		if (f.wrote && ctx.firstEdit === undefined) ctx.firstEdit = i;
	}
	if (ticked) claims.push(ticked);
	const out: ClaimSignal[] = [];
	const seen = new Set<string>();
	const add = (s: ClaimSignal | undefined) => {
		if (!s) return;
		const key = `${s.kind}|${s.verdict}|${s.evidence}`;
		if (seen.has(key)) return;
		seen.add(key);
		out.push(s);
	};
	let completionChecked = false;
	for (const claim of claims) {
		switch (claim.kind) {
			case "check-passed":
				add(checkPassed(ctx, claim));
				break;
			case "command-ran":
				add(commandRan(ctx, claim));
				break;
			case "files-changed":
			case "checklist":
				if (claim.files?.length) add(filesChanged(ctx, claim));
				// A summary of the changes claims they are finished as much as "done" does.
				if (claim.kind === "files-changed" && claim.source === "text" && !review && !completionChecked) {
					add(failingChecks(ctx, claim));
					completionChecked = true;
				}
				break;
			case "committed":
			case "pushed":
				add(gitClaim(ctx, claim));
				break;
			case "implemented":
				if (!ctx.anyWrite && !review)
					add({
						kind: "implemented",
						claim: claim.quote,
						from: segment.firstCall,
						to: Math.max(segment.firstCall, end - 1),
						verdict: "contradicted",
						evidence:
							`no edit or write succeeded anywhere in the session (${end} tool calls), and no command that ` +
							`could have written files ran`,
					});
				if (!completionChecked) add(failingChecks(ctx, claim));
				completionChecked = true;
				break;
			case "done":
				if (!completionChecked) add(failingChecks(ctx, claim));
				completionChecked = true;
				break;
			case "pre-existing":
				add(preExisting(ctx, claim));
				break;
		}
	}
	// A check said to pass between the last edit and the stop ("No type errors, works." after a
	// run) is a claim too; only what the log contradicts is told of it.
	if (segment.sinceEdit && segment.sinceEdit !== text && !review) {
		const said = new Set(claims.map((c) => c.quote));
		for (const claim of extractClaims(segment.sinceEdit).claims) {
			if (claim.kind !== "check-passed" || said.has(claim.quote)) continue;
			const signal = checkPassed(ctx, claim);
			if (signal?.verdict === "contradicted") add(signal);
		}
	}
	// A failing run already answered as a contradicted "passed" need not be told again as "done".
	const answered = new Set(
		out.filter((s) => s.kind === "check-passed" && s.verdict === "contradicted").map((s) => s.to),
	);
	return out.filter(
		(s) =>
			!(
				(s.kind === "done" || s.kind === "implemented") &&
				s.evidence.startsWith("the work is reported finished") &&
				answered.has(s.to)
			),
	);
}

function gitClaim(ctx: Context, claim: Claim): ClaimSignal | undefined {
	const op = claim.kind === "pushed" ? "push" : "commit";
	const runs = ctx.facts.slice(0, ctx.end).filter((f) => f.git?.op === op);
	if (!runs.length) return segmentSignal(ctx, claim, "unbacked", `no git ${op} in the session's tool log`);
	if (runs.some((r) => r.git?.ok)) return undefined;
	const last = runs.at(-1) as CallFact;
	return {
		kind: claim.kind,
		claim: claim.quote,
		from: (runs[0] as CallFact).index,
		to: last.index,
		verdict: "contradicted",
		evidence: `every git ${op} failed; the last, call ${last.index}: ${last.git?.why ?? "failed"}`,
	};
}

/** The items the segment's last checklist call marked done, as one claim (their file names). */
function lastTicked(facts: CallFact[], segment: Segment): Claim | undefined {
	for (let i = Math.min(segment.endCall, facts.length) - 1; i >= segment.firstCall; i--) {
		const items = (facts[i] as CallFact).ticked;
		if (!items) continue;
		const files = items.flatMap((item) => filesIn(item));
		return files.length
			? {
					kind: "checklist",
					quote: `marked done at call ${i}: ${items.join("; ").slice(0, 100)}`,
					files,
					source: "report",
				}
			: undefined;
	}
	return undefined;
}

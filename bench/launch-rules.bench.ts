// Launch rules judge every child before it starts, with patterns from settings. The work must
// grow with the size of the names, not explode: a backtracking matcher takes time exponential
// in the number of `*` on `*a*a*a…b` against `aaaa…`. Measures, alternately in one run, the
// judgement of a 32-child launch under a worst-case rule set (64 deny patterns of 256
// characters, `*a*a…*b`, none matching, then 64 such allow patterns) on model ids of 500 and
// of 1,000 characters (the longest a name may be). Linear work doubles; target: ≤ 3×.
// Printed beside it: the same launch under an ordinary rule set (three short patterns a role).
import { checkLaunch, type LaunchRules, type LaunchTarget } from "../src/rules/index.ts";
import { median, round } from "./stats.ts";

const hostile = `${"*a".repeat(127)}*b`;
const worst: LaunchRules = {
	action: "block",
	roleModels: { worker: { deny: Array(64).fill(hostile), allow: [...Array(63).fill(hostile), "*"] } },
};
const ordinary: LaunchRules = {
	action: "warn",
	roleModels: { worker: { allow: ["openai/*", "anthropic/claude-*:high"], deny: ["*:max"] } },
};
const launch = (idChars: number): LaunchTarget[] =>
	Array.from({ length: 32 }, (_, i) => ({
		label: `worker#${i + 1}`,
		role: "worker",
		provider: "p",
		id: "a".repeat(idChars - 2 - ":off".length),
		thinking: "off",
	}));
const usual: LaunchTarget[] = Array.from({ length: 32 }, (_, i) => ({
	label: `worker#${i + 1}`,
	role: "worker",
	provider: "openai",
	id: "gpt-5.5",
	thinking: "high",
}));

function timeOne(rules: LaunchRules, targets: LaunchTarget[]): number {
	const start = process.hrtime.bigint();
	const verdict = checkLaunch(rules, targets);
	const took = Number(process.hrtime.bigint() - start) / 1e6;
	// The worst case must still decide right: nothing denied, the last allow pattern admits all.
	if (rules === worst && (verdict.decisions.length !== 32 || verdict.broken.length)) throw new Error("wrong verdict");
	return took;
}

const half = launch(500);
const full = launch(1000);
const rounds = 9;
const halfMs: number[] = [];
const fullMs: number[] = [];
const usualMs: number[] = [];
timeOne(worst, half); // warm up
timeOne(worst, full);
for (let r = 0; r < rounds; r++) {
	halfMs.push(timeOne(worst, half));
	fullMs.push(timeOne(worst, full));
	usualMs.push(timeOne(ordinary, usual));
}
const ratio = median(fullMs) / median(halfMs);
const target = 3;
console.log(
	`32-child launch, worst-case rules: ${round(median(halfMs))} ms on 500-character ids, ${round(median(fullMs))} ms on 1,000-character ids; ordinary rules: ${round(median(usualMs), 3)} ms`,
);
console.log(
	JSON.stringify({
		bench: "launch-rules",
		ratio: round(ratio),
		target,
		pass: ratio <= target,
		halfMs: round(median(halfMs)),
		fullMs: round(median(fullMs)),
		ordinaryMs: round(median(usualMs), 3),
	}),
);

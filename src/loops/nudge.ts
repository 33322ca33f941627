// A user's short push to carry on ("continue", "come on", "go on", "try again", "?") is not new
// input: whatever the agent was stuck on, it is still stuck on it. A real new instruction is.
// Pure.

/** Longer prompts carry an instruction even when they start with "continue". */
const MAX_CHARS = 48;
const MAX_WORDS = 6;
const NUDGE = new RegExp(
	String.raw`^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|please|pls|so|well|hey|hello|and|now|just|then|come on|` +
		String.raw`c'mon)[\s,.!]*)*(?:continue|go on|go ahead|keep going|carry on|proceed|resume|next|do it|try again|` +
		String.raw`again|retry|come on|finish(?: it)?|hurry(?: up)?|well|and|hello|still there|any update|status|` +
		String.raw`ok(?:ay)?|yes|go|` +
		"继续|继续吧|请继续" +
		String.raw`)?[\s,.!?]*(?:please|pls|then)?[\s.!?]*$`,
	"i",
);

/** Whether a user prompt only nudges the agent on, adding no instruction. */
export function isNudge(text: string): boolean {
	const t = text.trim().replace(/[’‘]/g, "'");
	if (t.length > MAX_CHARS || t.split(/\s+/).length > MAX_WORDS) return false;
	return NUDGE.test(t);
}
